"""Stateful (Hypothesis) tests over the whole command language: see machine.py."""
