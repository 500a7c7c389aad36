"""The league's tools above the game service: the organiser's ``rummy-bot ladder`` /
``tournament`` commands (:mod:`bot.league_tools.cli`) and the tournament runner that plays
tournament games with computer players through the service (:mod:`bot.league_tools.runner`).

They use the league (:mod:`bot.league`) and the service's public API; the league itself never
imports the service or these tools.
"""
