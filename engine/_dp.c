/*
 * engine._dp: the search of engine/solver.py, in C.
 *
 * Both searches walk the states of the pure-Python reference ``_run_dp_reference`` (with
 * ``_cell_options``, ``_slot_options``, ``_group_jokers`` and ``_pareto_jokers``) in
 * engine/solver.py; the module docstring there explains the model (RULES.md "Common ground",
 * Stein wrap-around runs, Rummikub joker locks). ``run`` is the layered pass (with dominance
 * between states), ``search`` the depth-first branch and bound. tests/engine/test_solver.py
 * checks both against the reference and against a brute force.
 *
 * run(need, opt, weight, jw, jokers, jokers_need, open_min, canon, wrap, values, guesses,
 *     starts, ends, hints, blocks, target, budget)
 * search(the same, first, limit)
 *   -> (status, states, score, melds, placed, jokers_laid)
 * trials(the same as run, limit, cases)
 *   -> (status, states, score, melds, placed, jokers_laid, case): the tie-break trials, each a
 *   change of the needed pieces searched with ``first``, until one has a play (see dp_trials;
 *   with wrap-around runs each case also brings its order hints and gets its own guesses)
 *   need, opt, starts, ends, hints: bytes of 4 * 15 cells ([colour * 15 + value]); hints say
 *   how the table's own melds use the cell (group pieces | runs ended before << 2 | runs
 *   starting << 4), which orders the options (never the answer);
 *   weight: bytes of 15 (per value); values: bytes of 13 (the order of the pass);
 *   guesses: bytes of native uint16, 4 codes per guess; budget: -1 for none;
 *   blocks: records (colour, start, end, n, n piece codes) of the locked runs;
 *   first: ``target`` is the most there is, stop at the first play reaching it;
 *   limit: states the search may visit (-1 for none).
 *   status 0: no play reaches the target; 1: found; 2: more than ``budget`` states were
 *   needed; 3 (search): ``limit`` reached, with the best play found so far if any. A play
 *   comes as ``melds`` and ``placed`` rack pieces, as piece codes colour * 16 + value (255 a
 *   joker), and the jokers laid.
 *
 * The search keeps a memo of upper bounds per state (without its joker count: one row of bounds
 * per number of jokers left) and also drops a state when a twin that differs only in the colour
 * decided last dominates it (the rule of the pass, see dominate) and is known not to beat the
 * best play. The memo stays between calls: a ``run`` of the very problem the last ``search``
 * solved (same arguments but target and budget) first goes on with that search, within
 * RUN_DFS_LIMIT more states, at its own target (it often settles there quickly), and otherwise
 * prunes its layers with the memo's bounds. Either way the answer is the same optimum; the
 * states reported include those of the search.
 *
 * Stein's search proper, under a budget, also runs a relaxation once it has a play (see relax):
 * one search over every guess at once whose bounds prune all guesses.
 *
 * Both also look ahead (see Ahead): an option is dropped when the runs that must go on (short
 * ones need the next one or two values) and the groups of the current value that must fill up
 * need more jokers than are left. Such a state has no valid end, so nothing else changes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

#define BITS 12
#define SH_U 48
#define SH_G 52
#define SH_M 56
#define SH_OV 59
#define SH_GUESS 66
#define CODE_MASK 4095u
#define OPEN_ENDS (63u | (7u << 9))

typedef struct {
    uint16_t new_code;
    uint8_t xo, g, y;
    int16_t tri;
    uint8_t a1, a2, a3, lb, k3, y12, y3, s0, s1, s2, extra;
} Opt;

/* ---- the option cache (as functools.cache on _cell_options) --------------------------- */

static Opt *arena = NULL;
static size_t arena_n = 0, arena_cap = 0;

typedef struct {
    uint64_t key; /* parameters + 1; 0 = empty */
    uint32_t start, count;
} CacheSlot;

static CacheSlot *cache = NULL;
static size_t cache_cap = 0, cache_n = 0;

static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* make room for one more item in a growing array (the capacity doubles, starting at ``first``);
 * returns -1 from the calling function when memory runs out */
#define ROOM_FOR_ONE(items, n, cap, first)                                                         \
    do {                                                                                           \
        if ((n) == (cap)) {                                                                        \
            size_t grown_ = (cap) ? (size_t)(cap) * 2 : (size_t)(first);                          \
            void *more_ = realloc((items), grown_ * sizeof(*(items)));                             \
            if (!more_) return -1;                                                                 \
            (items) = more_;                                                                       \
            (cap) = grown_;                                                                        \
        }                                                                                          \
    } while (0)

static int arena_push(const Opt *o) {
    ROOM_FOR_ONE(arena, arena_n, arena_cap, 4096);
    arena[arena_n++] = *o;
    return 0;
}

static inline int imin(int a, int b) { return a < b ? a : b; }
static inline int imax(int a, int b) { return a > b ? a : b; }

/* _slot_options: append to the arena from ``first`` on, skipping keys already there */
static int slot_options(size_t first, int n1, int n2, int n3, int gap, int need, int opt,
                        int free_, int lead_max, int force, int ends, int used0, int a1, int a2,
                        int a3, int lb, int canon) {
    int shortc = n1 + n2;
    for (int xo = 0; xo <= opt; xo++) {
        int real = need + xo;
        for (int g = 0; g <= real; g++) {
            int rr = real - g;
            for (int k3 = force ? n3 : 0; k3 <= n3; k3++) {
                int long_ = k3 + gap;
                int cont = shortc + long_;
                int y12max = imin(shortc, free_);
                for (int y12 = 0; y12 <= y12max; y12++) {
                    int y3max = imin(long_, free_ - y12);
                    for (int y3 = 0; y3 <= y3max; y3++) {
                        int yc = y12 + y3;
                        int s = rr - cont + yc;
                        if (s < 0) continue;
                        int left = free_ - yc;
                        int n3_kept, gap_new;
                        if (canon) {
                            n3_kept = long_ - y3;
                            gap_new = y3;
                        } else {
                            n3_kept = long_;
                            gap_new = 0;
                        }
                        int s1max = lead_max >= 1 ? s : 0;
                        for (int s1 = 0; s1 <= s1max; s1++) {
                            if (s1 > left) break;
                            int s2max = lead_max >= 2 ? s - s1 : 0;
                            for (int s2 = 0; s2 <= s2max; s2++) {
                                int lead = s1 + 2 * s2;
                                if (lead > left) break;
                                int s0 = s - s1 - s2;
                                int extra_max = 0;
                                if (s2 && !canon) extra_max = imin(left - lead, s2 * (lead_max - 2));
                                for (int extra = 0; extra <= extra_max; extra++) {
                                    int tri = s1;
                                    if (s2) {
                                        int base = extra / s2, more = extra % s2;
                                        for (int i = 0; i < s2; i++) {
                                            int ln = 2 + base + (i < more ? 1 : 0);
                                            tri += ln * (ln + 1) / 2;
                                        }
                                    }
                                    int y = used0 + yc + lead + extra;
                                    int c1 = s0, c2 = n1 + s1, c3 = n2 + n3_kept + s2 + ends;
                                    if (c1 > 7 || c2 > 7 || c3 > 7 || gap_new > 7) continue;
                                    uint16_t nc = (uint16_t)(c1 | c2 << 3 | c3 << 6 | gap_new << 9);
                                    int dup = 0;
                                    for (size_t i = first; i < arena_n; i++) {
                                        Opt *q = &arena[i];
                                        if (q->new_code == nc && q->xo == xo && q->g == g &&
                                            q->y == y && q->tri == tri) {
                                            dup = 1;
                                            break;
                                        }
                                    }
                                    if (dup) continue;
                                    Opt o = {nc,
                                             (uint8_t)xo,
                                             (uint8_t)g,
                                             (uint8_t)y,
                                             (int16_t)tri,
                                             (uint8_t)a1,
                                             (uint8_t)a2,
                                             (uint8_t)a3,
                                             (uint8_t)lb,
                                             (uint8_t)k3,
                                             (uint8_t)y12,
                                             (uint8_t)y3,
                                             (uint8_t)s0,
                                             (uint8_t)s1,
                                             (uint8_t)s2,
                                             (uint8_t)extra};
                                    if (arena_push(&o)) return -1;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    return 0;
}

/* _cell_options: the options of one cell from a colour state, cached; sets *start, *count */
/* how far an option is from the table's own melds at this cell (``hint``: group pieces,
 * runs that ended just before, runs that start here, 2 bits each): tried first when equal */
static inline int mismatch(const Opt *o, int code, int hint) {
    int n3 = (code >> 6) & 7;
    int stops = n3 - o->a3 - o->k3, starts = o->s0 + o->s1 + o->s2;
    return abs(o->g - (hint & 3)) + abs(stops - ((hint >> 2) & 3)) + abs(starts - ((hint >> 4) & 3));
}

static __attribute__((noinline)) int cell_options_make(uint64_t key, int code, int need,
                                                       int opt, int free_, int lead_max,
                                                       int force, int starts, int ends, int canon,
                                                       int hint, uint32_t *start,
                                                       uint32_t *count);

/* the lookup (hot, inlined); cell_options_make computes what the cache does not hold */
static inline int cell_options(int code, int need, int opt, int free_, int lead_max, int force,
                               int starts, int ends, int canon, int hint, uint32_t *start,
                               uint32_t *count) {
    uint64_t key = (uint64_t)code | (uint64_t)need << 12 | (uint64_t)opt << 18 |
                   (uint64_t)free_ << 24 | (uint64_t)lead_max << 30 | (uint64_t)force << 36 |
                   (uint64_t)starts << 37 | (uint64_t)ends << 43 | (uint64_t)canon << 49 |
                   (uint64_t)hint << 50;
    key += 1;
    if (cache_n * 2 < cache_cap) {
        size_t h = mix64(key) & (cache_cap - 1);
        while (cache[h].key) {
            if (cache[h].key == key) {
                *start = cache[h].start;
                *count = cache[h].count;
                return 0;
            }
            h = (h + 1) & (cache_cap - 1);
        }
    }
    return cell_options_make(key, code, need, opt, free_, lead_max, force, starts, ends, canon,
                             hint, start, count);
}

static int cell_options_make(uint64_t key, int code, int need, int opt, int free_, int lead_max,
                             int force, int starts, int ends, int canon, int hint,
                             uint32_t *start, uint32_t *count) {
    if (cache_n * 2 >= cache_cap) {
        size_t cap = cache_cap ? cache_cap * 2 : 1 << 12;
        CacheSlot *fresh = calloc(cap, sizeof(CacheSlot));
        if (!fresh) return -1;
        for (size_t i = 0; i < cache_cap; i++) {
            if (!cache[i].key) continue;
            size_t h = mix64(cache[i].key) & (cap - 1);
            while (fresh[h].key) h = (h + 1) & (cap - 1);
            fresh[h] = cache[i];
        }
        free(cache);
        cache = fresh;
        cache_cap = cap;
    }
    size_t h = mix64(key) & (cache_cap - 1);
    while (cache[h].key) {
        if (cache[h].key == key) {
            *start = cache[h].start;
            *count = cache[h].count;
            return 0;
        }
        h = (h + 1) & (cache_cap - 1);
    }
    size_t first = arena_n;
    int n1 = code & 7, n2 = (code >> 3) & 7, n3 = (code >> 6) & 7, gap = code >> 9;
    for (int a1 = 0; a1 <= imin(n1, starts); a1++)
        for (int a2 = 0; a2 <= imin(n2, starts - a1); a2++)
            for (int a3 = 0; a3 <= imin(n3, starts - a1 - a2); a3++) {
                int fresh = starts - a1 - a2 - a3;
                int m1 = n1 - a1, m2 = n2 - a2, m3 = n3 - a3;
                int lbmax = imin(free_, fresh * lead_max);
                for (int lb = 0; lb <= lbmax; lb++)
                    if (slot_options(first, m1, m2, m3, gap, need, opt, free_ - lb, lead_max, force,
                                     ends, lb, a1, a2, a3, lb, canon))
                        return -1;
            }
    /* most rack pieces first, then closest to the table's own melds, then fewest jokers (the
     * search dives into these first) */
    for (size_t i = first + 1; i < arena_n; i++) {
        Opt o = arena[i];
        int mo = mismatch(&o, code, hint);
        size_t j = i;
        while (j > first) {
            const Opt *q = &arena[j - 1];
            int mq = mismatch(q, code, hint);
            if (!(q->xo < o.xo || (q->xo == o.xo && (mq > mo || (mq == mo && q->y > o.y))))) break;
            arena[j] = arena[j - 1];
            j--;
        }
        arena[j] = o;
    }
    cache[h].key = key;
    cache[h].start = (uint32_t)first;
    cache[h].count = (uint32_t)(arena_n - first);
    cache_n++;
    *start = cache[h].start;
    *count = cache[h].count;
    return 0;
}

/* ---- layers: insertion-ordered maps from packed state to (score, back pointer, decision) -- */

typedef struct {
    u128 key;
    int32_t score;
    int32_t prev;
    int32_t dec; /* arena index of the option (cell steps) or jokers (group steps) */
} Entry;

typedef struct {
    Entry *e;
    int32_t n, cap;
    int32_t *tab;
    uint32_t mask;
} Layer;

static inline uint64_t hash128(u128 k) {
    return mix64((uint64_t)k ^ mix64((uint64_t)(k >> 64) + 0x9e3779b97f4a7c15ULL));
}

static int layer_init(Layer *L, int32_t cap) {
    L->n = 0;
    L->cap = cap < 16 ? 16 : cap;
    L->e = malloc((size_t)L->cap * sizeof(Entry));
    uint32_t size = 32;
    while (size < (uint32_t)L->cap * 2) size <<= 1;
    L->tab = malloc(size * sizeof(int32_t));
    if (!L->e || !L->tab) return -1;
    memset(L->tab, 0xff, size * sizeof(int32_t));
    L->mask = size - 1;
    return 0;
}

static void layer_free(Layer *L) {
    free(L->e);
    free(L->tab);
    L->e = NULL;
    L->tab = NULL;
}

static int layer_grow(Layer *L) {
    int32_t cap = L->cap * 2;
    Entry *e = realloc(L->e, (size_t)cap * sizeof(Entry));
    if (!e) return -1;
    L->e = e;
    L->cap = cap;
    uint32_t size = (L->mask + 1) * 2;
    int32_t *tab = malloc(size * sizeof(int32_t));
    if (!tab) return -1;
    memset(tab, 0xff, size * sizeof(int32_t));
    for (int32_t i = 0; i < L->n; i++) {
        uint32_t h = (uint32_t)hash128(L->e[i].key) & (size - 1);
        while (tab[h] >= 0) h = (h + 1) & (size - 1);
        tab[h] = i;
    }
    free(L->tab);
    L->tab = tab;
    L->mask = size - 1;
    return 0;
}

/* the entry holding ``key`` (or -1), and in *slot where it is or would go */
static inline int32_t layer_find(const Layer *L, u128 key, uint32_t *slot) {
    uint32_t h = (uint32_t)hash128(key) & L->mask;
    for (;;) {
        int32_t i = L->tab[h];
        if (i < 0 || L->e[i].key == key) {
            *slot = h;
            return i;
        }
        h = (h + 1) & L->mask;
    }
}

/* keep the best score per key (the first one on ties), as ``if old is None or ns > old[0]`` */
static int layer_offer(Layer *L, u128 key, int32_t score, int32_t prev, int32_t dec) {
    uint32_t h;
    int32_t i = layer_find(L, key, &h);
    if (i >= 0) {
        if (score > L->e[i].score) {
            L->e[i].score = score;
            L->e[i].prev = prev;
            L->e[i].dec = dec;
        }
        return 0;
    }
    if (L->n == L->cap) {
        if (layer_grow(L)) return -1;
        layer_find(L, key, &h);
    }
    L->e[L->n] = (Entry){key, score, prev, dec};
    L->tab[h] = L->n++;
    return 0;
}

/* _pareto_jokers: drop states beaten by a twin that used fewer jokers (canonical model) */
static const u128 U_MASK = (u128)15 << SH_U;

typedef struct {
    int32_t used;
    int32_t eff;
    u128 key;
    int32_t idx;
} Twin;

static int twin_cmp(const void *a, const void *b) {
    const Twin *x = a, *y = b;
    if (x->used != y->used) return x->used < y->used ? -1 : 1;
    if (x->eff != y->eff) return x->eff < y->eff ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return 0;
}

static int pareto(Layer *L, int jw) {
    int32_t n = L->n;
    if (n < 2) return 0;
    /* group id per entry, groups in order of first appearance */
    Layer G;
    if (layer_init(&G, n)) return -1;
    int32_t *gid = malloc((size_t)n * sizeof(int32_t));
    if (!gid) return -1;
    for (int32_t i = 0; i < n; i++) {
        u128 k = L->e[i].key & ~U_MASK;
        uint32_t h;
        int32_t found = layer_find(&G, k, &h);
        if (found < 0) {
            found = G.n;
            G.e[G.n] = (Entry){k, 0, 0, 0};
            G.tab[h] = G.n++;
        }
        G.e[found].score++; /* members */
        gid[i] = found;
    }
    int32_t groups = G.n;
    if (groups == n) {
        free(gid);
        layer_free(&G);
        return 0;
    }
    int32_t *off = malloc(((size_t)groups + 1) * sizeof(int32_t));
    Twin *tw = malloc((size_t)n * sizeof(Twin));
    Entry *out = malloc((size_t)n * sizeof(Entry));
    if (!off || !tw || !out) return -1;
    off[0] = 0;
    for (int32_t g = 0; g < groups; g++) off[g + 1] = off[g] + G.e[g].score;
    int32_t *fill = malloc(((size_t)groups) * sizeof(int32_t));
    if (!fill) return -1;
    memcpy(fill, off, (size_t)groups * sizeof(int32_t));
    for (int32_t i = 0; i < n; i++) {
        int32_t used = (int32_t)((L->e[i].key >> SH_U) & 15);
        Twin t = {used, L->e[i].score - used * jw, L->e[i].key, i};
        tw[fill[gid[i]]++] = t;
    }
    int32_t m = 0;
    for (int32_t g = 0; g < groups; g++) {
        Twin *row = tw + off[g];
        int32_t len = off[g + 1] - off[g];
        if (len == 1) {
            out[m++] = L->e[row[0].idx];
            continue;
        }
        qsort(row, (size_t)len, sizeof(Twin), twin_cmp);
        int have = 0;
        int32_t top = 0;
        for (int32_t k = 0; k < len; k++) {
            if (!have || row[k].eff > top) {
                top = row[k].eff;
                have = 1;
                out[m++] = L->e[row[k].idx];
            }
        }
    }
    free(L->e);
    L->e = out;
    L->n = m;
    L->cap = n;
    free(fill);
    free(off);
    free(tw);
    free(gid);
    layer_free(&G);
    return 0;
}

/* Dominance on the colour just decided: a state is dropped when a twin that differs only in this colour's runs and scores as much can
 * do everything it can: the twin's runs cover its runs (each at least as long) and every extra
 * run of the twin is long enough to end now. Kept states stay in their order. */
static inline int code_dominates(unsigned a, unsigned b) {
    int a1 = a & 7, a2 = (a >> 3) & 7, a3 = (a >> 6) & 7, ag = a >> 9;
    int b1 = b & 7, b2 = (b >> 3) & 7, b3 = (b >> 6) & 7, bg = b >> 9;
    return ag == bg && a1 <= b1 && a1 + a2 <= b1 + b2 && a3 >= b3 && a2 + a3 >= b2 + b3 &&
           a1 + a2 + a3 >= b1 + b2 + b3;
}

static int dominate(Layer *L, int c, int joker_twins, int jw) {
    int32_t n = L->n;
    if (n < 2) return 0;
    int sh = BITS * c;
    u128 mask = ~((u128)CODE_MASK << sh);
    if (joker_twins) mask &= ~((u128)15 << SH_U);
    Layer G;
    if (layer_init(&G, n)) return -1;
    int32_t *next = malloc((size_t)n * sizeof(int32_t)); /* chain of members per group */
    char *dead = calloc((size_t)n, 1);
    if (!next || !dead) return -1;
    for (int32_t i = 0; i < n; i++) {
        u128 k = L->e[i].key & mask;
        uint32_t h;
        int32_t found = layer_find(&G, k, &h);
        if (found < 0) {
            G.e[G.n] = (Entry){k, 0, i, 0}; /* prev: head of the chain */
            G.tab[h] = G.n++;
            next[i] = -1;
        } else {
            next[i] = G.e[found].prev;
            G.e[found].prev = i;
            G.e[found].score++;
        }
    }
    int32_t removed = 0;
    if (G.n < n) {
        for (int32_t g = 0; g < G.n; g++) {
            if (!G.e[g].score) continue; /* a single member */
            for (int32_t i = G.e[g].prev; i >= 0; i = next[i]) {
                unsigned ci = (unsigned)((L->e[i].key >> sh) & CODE_MASK);
                for (int32_t j = G.e[g].prev; j >= 0; j = next[j]) {
                    if (j == i || dead[j]) continue;
                    unsigned cj = (unsigned)((L->e[j].key >> sh) & CODE_MASK);
                    int ui = (int)((L->e[i].key >> SH_U) & 15), uj = (int)((L->e[j].key >> SH_U) & 15);
                    /* canonical jokers: every joker not laid scores at the end (see pareto) */
                    if (uj <= ui && L->e[j].score - uj * jw >= L->e[i].score - ui * jw &&
                        code_dominates(cj, ci)) {
                        dead[i] = 1;
                        removed++;
                        break;
                    }
                }
            }
        }
    }
    if (removed) {
        int32_t m = 0;
        for (int32_t i = 0; i < n; i++)
            if (!dead[i]) L->e[m++] = L->e[i];
        L->n = m;
    }
    free(next);
    free(dead);
    layer_free(&G);
    return 0;
}

/* _group_jokers: joker counts with which the group pieces of a value split into groups */
static int group_jokers(int pieces, int most, int free_, int canon, int *out) {
    if (pieces == 0) {
        out[0] = 0;
        return 1;
    }
    int n = 0;
    for (int j = 0; j <= free_; j++) {
        for (int k = imax(most, 1); k <= pieces; k++) {
            if (3 * k <= pieces + j && pieces + j <= 4 * k &&
                (!canon || j == imax(0, 3 * k - pieces))) {
                out[n++] = j;
                break;
            }
        }
    }
    return n;
}


/* ---- the rebuild: replay the decisions into melds (as ``_rebuild_reference``) -------------- */

#define JOKER_CODE 255

typedef struct {
    int16_t *pc;
    int n, cap;
    int busy_until, guess, waiting;
} Slot;

typedef struct {
    Slot *s;
    int n, cap;
} Slots;

typedef struct {
    int *ids;
    int n, cap;
} IdList;

static int ids_push(IdList *l, int id) {
    ROOM_FOR_ONE(l->ids, l->n, l->cap, 16);
    l->ids[l->n++] = id;
    return 0;
}

static void ids_remove(IdList *l, int id) {
    for (int i = 0; i < l->n; i++)
        if (l->ids[i] == id) {
            memmove(l->ids + i, l->ids + i + 1, (size_t)(l->n - i - 1) * sizeof(int));
            l->n--;
            return;
        }
}

static int slot_new(Slots *S, int guess) {
    ROOM_FOR_ONE(S->s, S->n, S->cap, 32);
    S->s[S->n] = (Slot){NULL, 0, 0, 0, guess, 0};
    return S->n++;
}

static int slot_add(Slot *s, int code) {
    ROOM_FOR_ONE(s->pc, s->n, s->cap, 8);
    s->pc[s->n++] = (int16_t)code;
    return 0;
}

static inline int slot_cat(const Slot *s) {
    int n = s->n + (s->guess > 0 ? s->guess : 0);
    return n < 3 ? n : 3;
}

static int melds_append(PyObject *melds, const int16_t *pc, int n) {
    PyObject *m = PyList_New(n);
    if (!m) return -1;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(m, i, PyLong_FromLong(pc[i]));
    int r = PyList_Append(melds, m);
    Py_DECREF(m);
    return r;
}

/* a run longer than ``limit`` is split (linear 13, wrap 26), as ``_split_long`` */
static int melds_append_run(PyObject *melds, const int16_t *pc, int n, int limit) {
    while (n > limit) {
        int cut = n - limit >= 3 ? limit : n - 3;
        if (melds_append(melds, pc, cut)) return -1;
        pc += cut;
        n -= cut;
    }
    return melds_append(melds, pc, n);
}

/* ``_groups_of``: deal the group pieces of one value round-robin (sorted by colour), then jokers */
static int groups_of(PyObject *melds, const int *colours, int n, int jokers, int value) {
    int count[4] = {0, 0, 0, 0}, most = 0;
    for (int i = 0; i < n; i++) count[colours[i]]++;
    for (int c = 0; c < 4; c++) most = imax(most, count[c]);
    int total = n + jokers, k = 0;
    for (int q = imax(most, 1); q <= n; q++)
        if (3 * q <= total && total <= 4 * q) {
            k = q;
            break;
        }
    if (!k) return 0; /* cannot happen: the programme only closes valid groups */
    int16_t groups[8][8];
    int len[8] = {0};
    int i = 0;
    for (int c = 0; c < 4; c++)
        for (int q = 0; q < count[c]; q++, i++) groups[i % k][len[i % k]++] = (int16_t)(c * 16 + value);
    for (int q = 0; q < jokers; q++) {
        int best = 0;
        for (int g = 1; g < k; g++)
            if (len[g] < len[best]) best = g;
        groups[best][len[best]++] = JOKER_CODE;
    }
    for (int g = 0; g < k; g++)
        if (melds_append(melds, groups[g], len[g])) return -1;
    return 0;
}

/* blocks: records (colour, start, end, n, codes...) */
static PyObject *rebuild(const unsigned char *need, const unsigned char *values, const uint16_t *guess,
                         int wrap, int canon, const unsigned char *blocks, Py_ssize_t blocks_n,
                         const Opt **opts, const int *js, int *jokers_used, PyObject *placed) {
    PyObject *melds = PyList_New(0);
    if (!melds) return NULL;
    Slots S = {NULL, 0, 0};
    IdList active[4] = {{0}}, finished[4] = {{0}}, heads[4] = {{0}};
    IdList cats[5] = {{0}};
    int group_colours[16];
    int ng = 0, used = 0, ok = 0;
    for (int c = 0; c < 4; c++) {
        int code = guess[c];
        int per[3] = {code & 7, (code >> 3) & 7, (code >> 6) & 7};
        for (int len = 1; len <= 3; len++)
            for (int q = 0; q < per[len - 1]; q++) {
                int id = slot_new(&S, len);
                if (id < 0 || ids_push(&active[c], id) || ids_push(&heads[c], id)) goto out;
            }
    }
    int step = 0;
    for (int vi = 0; vi < 13; vi++) {
        int v = values[vi];
        for (int c = 0; c < 4; c++) {
            const Opt *o = opts[step++];
            used += o->y;
            int real = need[c * 15 + v] + o->xo;
            int face = c * 16 + v;
            for (int q = 0; q < o->xo; q++) {
                PyObject *f = PyLong_FromLong(face);
                if (!f || PyList_Append(placed, f)) goto out;
                Py_DECREF(f);
            }
            for (int k = 1; k <= 4; k++) cats[k].n = 0;
            for (int q = 0; q < active[c].n; q++) {
                Slot *sl = &S.s[active[c].ids[q]];
                if (sl->busy_until >= v) continue;
                if (ids_push(&cats[sl->waiting ? 4 : slot_cat(sl)], active[c].ids[q])) goto out;
            }
            /* locked blocks starting here absorb runs (a1 of length 1, a2 of 2, a3 of 3+) */
            int absorbed[16], na = 0;
            int take[4] = {0, o->a1, o->a2, o->a3};
            for (int k = 1; k <= 3; k++) {
                for (int q = 0; q < take[k]; q++) absorbed[na++] = cats[k].ids[q];
                memmove(cats[k].ids, cats[k].ids + take[k], (size_t)(cats[k].n - take[k]) * sizeof(int));
                cats[k].n -= take[k];
            }
            int leads = o->lb, nb = 0;
            for (Py_ssize_t b = 0; b < blocks_n;) {
                int bc = blocks[b], bs = blocks[b + 1], be = blocks[b + 2], bn = blocks[b + 3];
                const unsigned char *codes = blocks + b + 4;
                b += 4 + bn;
                if (bc != c || bs != v) continue;
                int id;
                if (nb < na) {
                    id = absorbed[nb];
                } else {
                    int room = wrap ? 13 : v - 1;
                    int n = imin(leads, room);
                    leads -= n;
                    id = slot_new(&S, -1);
                    if (id < 0 || ids_push(&active[c], id)) goto out;
                    for (int q = 0; q < n; q++)
                        if (slot_add(&S.s[id], JOKER_CODE)) goto out;
                }
                nb++;
                for (int q = 0; q < bn; q++)
                    if (slot_add(&S.s[id], codes[q])) goto out;
                S.s[id].busy_until = be;
            }
            /* long runs beyond k3 stop; short and waiting runs go on */
            for (int q = o->k3; q < cats[3].n; q++) {
                ids_remove(&active[c], cats[3].ids[q]);
                if (ids_push(&finished[c], cats[3].ids[q])) goto out;
            }
            int reals = real - o->g;
            for (int q = 0; q < o->g; q++) group_colours[ng++] = c;
            int nshort = cats[1].n + cats[2].n;
            for (int k = 0; k < nshort; k++) {
                int id = k < cats[1].n ? cats[1].ids[k] : cats[2].ids[k - cats[1].n];
                if (k < nshort - o->y12) {
                    if (slot_add(&S.s[id], face)) goto out;
                    reals--;
                } else if (slot_add(&S.s[id], JOKER_CODE)) {
                    goto out;
                }
            }
            int nlong = o->k3 + cats[4].n;
            for (int k = 0; k < nlong; k++) {
                int id = k < o->k3 ? cats[3].ids[k] : cats[4].ids[k - o->k3];
                if (k < nlong - o->y3) {
                    if (slot_add(&S.s[id], face)) goto out;
                    S.s[id].waiting = 0;
                    reals--;
                } else {
                    if (slot_add(&S.s[id], JOKER_CODE)) goto out;
                    S.s[id].waiting = canon;
                }
            }
            int base = o->s2 ? o->extra / o->s2 : 0, more = o->s2 ? o->extra % o->s2 : 0;
            for (int k = 0; k < o->s0 + o->s1 + o->s2; k++) {
                int lead = k < o->s0 ? 0 : k < o->s0 + o->s1 ? 1 : 2 + base + (k - o->s0 - o->s1 < more);
                int id = slot_new(&S, -1);
                if (id < 0 || ids_push(&active[c], id)) goto out;
                for (int q = 0; q < lead; q++)
                    if (slot_add(&S.s[id], JOKER_CODE)) goto out;
                if (slot_add(&S.s[id], face)) goto out;
                reals--;
            }
            if (reals != 0) {
                PyErr_SetString(PyExc_RuntimeError, "engine._dp: inconsistent decisions");
                goto out;
            }
        }
        int j = js[vi];
        used += j;
        if ((ng || j) && groups_of(melds, group_colours, ng, j, v)) goto out;
        ng = 0;
    }
    /* runs open at the end: in wrap mode some continue into the guessed crossing runs */
    {
        int limit = wrap ? 26 : 13;
        int16_t *buf = NULL;
        int bufcap = 0;
        for (int c = 0; c < 4; c++) {
            IdList all = {0};
            for (int q = 0; q < finished[c].n; q++)
                if (ids_push(&all, finished[c].ids[q])) goto out;
            for (int q = 0; q < active[c].n; q++)
                if (ids_push(&all, active[c].ids[q])) goto out;
            int *succ = malloc((size_t)(S.n + 1) * sizeof(int));
            char *has_pred = calloc((size_t)S.n + 1, 1), *seen = calloc((size_t)S.n + 1, 1);
            char *is_succ_src = calloc((size_t)S.n + 1, 1);
            if (!succ || !has_pred || !seen || !is_succ_src) goto out;
            for (int q = 0; q <= S.n; q++) succ[q] = -1;
            /* heads in ascending guessed length; each takes the shortest free run end at
             * least that long (real starts before guessed ones): the ends dominate the guess
             * (see final_ok), so every short end finds a head and every head an end */
            for (int h = 0; h < heads[c].n; h++) {
                int head = heads[c].ids[h], pred = -1;
                for (int want = S.s[head].guess; want <= 3 && pred < 0; want++)
                    for (int pass = 0; pass < 2 && pred < 0; pass++)
                        for (int q = 0; q < active[c].n; q++) {
                            int id = active[c].ids[q];
                            if ((S.s[id].guess > 0) != pass || is_succ_src[id]) continue;
                            if (slot_cat(&S.s[id]) == want) {
                                pred = id;
                                break;
                            }
                        }
                if (pred < 0) {
                    PyErr_SetString(PyExc_RuntimeError, "engine._dp: no run for a guessed crossing");
                    goto out;
                }
                succ[pred] = head;
                is_succ_src[pred] = 1;
                has_pred[head] = 1;
            }
            IdList order = {0};
            for (int q = 0; q < all.n; q++)
                if (!has_pred[all.ids[q]] && ids_push(&order, all.ids[q])) goto out;
            for (int q = 0; q < all.n; q++)
                if (ids_push(&order, all.ids[q])) goto out;
            for (int q = 0; q < order.n; q++) {
                int first = order.ids[q];
                if (seen[first]) continue;
                int n = 0;
                for (int cur = first; cur >= 0 && !seen[cur]; cur = succ[cur]) {
                    seen[cur] = 1;
                    Slot *sl = &S.s[cur];
                    if (n + sl->n > bufcap) {
                        bufcap = (n + sl->n) * 2;
                        int16_t *p = realloc(buf, (size_t)bufcap * sizeof(int16_t));
                        if (!p) goto out;
                        buf = p;
                    }
                    memcpy(buf + n, sl->pc, (size_t)sl->n * sizeof(int16_t));
                    n += sl->n;
                }
                if (melds_append_run(melds, buf, n, limit)) goto out;
            }
            free(order.ids);
            free(all.ids);
            free(succ);
            free(has_pred);
            free(seen);
            free(is_succ_src);
        }
        free(buf);
    }
    ok = 1;
out:
    for (int i = 0; i < S.n; i++) free(S.s[i].pc);
    free(S.s);
    for (int c = 0; c < 4; c++) {
        free(active[c].ids);
        free(finished[c].ids);
        free(heads[c].ids);
    }
    for (int k = 0; k < 5; k++) free(cats[k].ids);
    if (!ok) {
        Py_DECREF(melds);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return NULL;
    }
    *jokers_used = used;
    return melds;
}

/* ---- the problem as both searches take it ------------------------------------------------- */

typedef struct {
    const unsigned char *need, *opt, *weight, *values, *starts, *ends, *hints, *blocks;
    const uint16_t *guesses;
    Py_ssize_t n_guesses, blocks_n;
    int jw, jokers, jokers_need, open_min, canon, wrap;
    long long target, budget; /* target as the caller gave it (rack jokers only) */
    uint64_t fp;              /* fingerprint of everything but target and budget (never 0) */
    /* wrap mode, guesses made here: ``guesses`` are those that pass the joker test, ``all`` the
     * full list, ``skipped[i]``: how many of it before kept guess i failed the test */
    const uint16_t *all;
    Py_ssize_t n_all;
    const uint32_t *skipped;
} Problem;

/* ---- Stein's crossing runs (``_wrap_plan`` / ``_wrap_cut`` of engine/solver.py) ------------ */

/* Per colour the codes of the runs that may cross the cut, grouped by the jokers they need
 * beyond the real pieces at the cut (codes in the order n1, n2, n3 nested, as _wrap_plan). */
typedef struct {
    int n[8];
    uint16_t code[8][120];
} CostCodes;

static uint16_t *guess_buf = NULL; /* the guesses parse_problem made (one problem at a time) */
static size_t guess_cap = 0, guess_n = 0;
/* the guesses that pass the joker test (see guess_jokers), and per kept guess how many guesses
 * before it failed the test */
static uint16_t *kept_buf = NULL;
static uint32_t *kept_skipped = NULL;
static size_t kept_cap = 0, kept_n = 0;
static uint8_t guess_cost[4][512]; /* guess_jokers per colour and code (255: not computed) */
static int guess_filter = 0, guess_jokers_max = 0;

static int guess_push(const uint16_t g[4]) {
    if ((guess_n + 1) * 4 > guess_cap) {
        size_t cap = guess_cap ? guess_cap * 2 : 4096;
        uint16_t *more = realloc(guess_buf, cap * sizeof(uint16_t));
        if (!more) return -1;
        guess_buf = more;
        guess_cap = cap;
    }
    memcpy(guess_buf + guess_n * 4, g, 4 * sizeof(uint16_t));
    guess_n++;
    if (!guess_filter) return 0;
    int cost = 0;
    for (int c = 0; c < 4; c++) cost += guess_cost[c][g[c]];
    if (cost > guess_jokers_max) return 0;
    if (kept_n + 1 > kept_cap) {
        size_t cap = kept_cap ? kept_cap * 2 : 1024;
        uint16_t *more = realloc(kept_buf, cap * 4 * sizeof(uint16_t));
        if (!more) return -1;
        kept_buf = more;
        uint32_t *skip = realloc(kept_skipped, cap * sizeof(uint32_t));
        if (!skip) return -1;
        kept_skipped = skip;
        kept_cap = cap;
    }
    memcpy(kept_buf + kept_n * 4, g, 4 * sizeof(uint16_t));
    kept_skipped[kept_n] = (uint32_t)(guess_n - 1 - kept_n);
    kept_n++;
    return 0;
}

/* The jokers the crossing runs of one colour (``code``: n1, n2, n3 runs with 1, 2, 3 or more
 * pieces before the cut) need at least, the cut between values ``before`` and ``after``. Such
 * a run holds a piece at ``before`` and at ``after`` (the first cell of the pass continues every
 * run), one of two or more before the cut also at before - 1, one of three or more at
 * before - 2, and one of one piece before the cut, which is one or two long after ``after``
 * and must go on, at after + 1 (13 values: these five cells are distinct). The runs are
 * different, so each cell holds as many distinct pieces as runs pass it: the pieces missing
 * there (there are ``have`` of that colour and value, needed or rack) must be jokers. A guess
 * whose colours together need more jokers than there are has no valid end; the searches leave
 * it out, which changes nothing else (every guess is searched on its own: memo and twins
 * carry its index). Exact only under that argument; tests/engine/test_solver_guesses.py
 * compares with the full list. */
static int guess_jokers(const unsigned char *need, const unsigned char *opt, int c, int cut,
                        unsigned code) {
    int n1 = code & 7, n2 = (code >> 3) & 7, n3 = (code >> 6) & 7, n = n1 + n2 + n3;
    int before = cut ? cut : 13;
    int at[5] = {before - 2, before - 1, before, cut + 1, cut + 2};
    int demand[5] = {n3, n2 + n3, n, n, n1};
    int cost = 0;
    for (int k = 0; k < 5; k++) {
        int v = (at[k] + 12) % 13 + 1; /* 1..13 */
        int have = need[c * 15 + v] + opt[c * 15 + v];
        if (demand[k] > have) cost += demand[k] - have;
    }
    return cost;
}

/* every combination needing at most ``jokers`` jokers, colour by colour, cheapest first */
static int guess_extend(const CostCodes *pc, int colour, int spent, int jokers, uint16_t g[4]) {
    for (int cost = 0; cost < 8; cost++) {
        if (!pc[colour].n[cost]) continue;
        if (spent + cost > jokers) break;
        for (int q = 0; q < pc[colour].n[cost]; q++) {
            g[colour] = pc[colour].code[cost][q];
            if (colour == 3) {
                if (guess_push(g)) return -1;
            } else if (guess_extend(pc, colour + 1, spent + cost, jokers, g)) {
                return -1;
            }
        }
    }
    return 0;
}

/* the cut (the pass starts at value cut + 1) and the guesses into guess_buf / guess_n */
static int wrap_guesses_make(const unsigned char *need, const unsigned char *opt, int jokers,
                             int *cut_out, int filter) {
    unsigned long long best = 0;
    int cut = -1, real[4] = {0}, limit[4] = {0};
    for (int k = 0; k < 13; k++) {
        int before = k ? k : 13, after = k + 1;
        unsigned long long count = 1;
        int r[4], l[4];
        for (int c = 0; c < 4; c++) {
            int a = need[c * 15 + before] + opt[c * 15 + before];
            int b = need[c * 15 + after] + opt[c * 15 + after];
            int total = 0;
            for (int v = 1; v <= 13; v++) total += need[c * 15 + v] + opt[c * 15 + v];
            r[c] = imin(a, b);
            l[c] = imin(imin(r[c] + jokers, total), 7);
            count *= (unsigned long long)((l[c] + 1) * (l[c] + 2) * (l[c] + 3) / 6);
        }
        if (cut < 0 || count < best) {
            best = count;
            cut = k;
            memcpy(real, r, sizeof(r));
            memcpy(limit, l, sizeof(l));
        }
    }
    CostCodes pc[4];
    memset(pc, 0, sizeof(pc));
    for (int c = 0; c < 4; c++)
        for (int n1 = 0; n1 <= limit[c]; n1++)
            for (int n2 = 0; n2 <= limit[c] - n1; n2++)
                for (int n3 = 0; n3 <= limit[c] - n1 - n2; n3++) {
                    int cost = imax(0, n1 + n2 + n3 - real[c]);
                    pc[c].code[cost][pc[c].n[cost]++] = (uint16_t)(n1 | n2 << 3 | n3 << 6);
                }
    guess_n = 0;
    kept_n = 0;
    guess_filter = filter;
    guess_jokers_max = jokers;
    if (filter)
        for (int c = 0; c < 4; c++)
            for (int cost = 0; cost < 8; cost++)
                for (int q = 0; q < pc[c].n[cost]; q++) {
                    unsigned code = pc[c].code[cost][q];
                    guess_cost[c][code] = (uint8_t)imin(255, guess_jokers(need, opt, c, cut, code));
                }
    uint16_t g[4] = {0, 0, 0, 0};
    *cut_out = cut;
    return guess_extend(pc, 0, 0, jokers, g);
}

/* wrap_guesses(need, opt, jokers) -> (cut, guesses as bytes of native uint16, four per guess):
 * what ``search`` and ``run`` make for themselves when given no guesses in wrap mode */
static PyObject *dp_wrap_guesses(PyObject *self, PyObject *args) {
    const unsigned char *need, *opt;
    Py_ssize_t need_n, opt_n;
    int jokers, cut;
    int filter = 0;
    if (!PyArg_ParseTuple(args, "y#y#i|p", &need, &need_n, &opt, &opt_n, &jokers, &filter))
        return NULL;
    if (need_n != 60 || opt_n != 60 || jokers < 0 || jokers > 15) {
        PyErr_SetString(PyExc_ValueError, "engine._dp: malformed problem");
        return NULL;
    }
    if (wrap_guesses_make(need, opt, jokers, &cut, filter)) return PyErr_NoMemory();
    if (filter)
        return Py_BuildValue("(iy#)", cut, (const char *)kept_buf,
                             (Py_ssize_t)(kept_n * 4 * sizeof(uint16_t)));
    return Py_BuildValue("(iy#)", cut, (const char *)guess_buf,
                         (Py_ssize_t)(guess_n * 4 * sizeof(uint16_t)));
}

static const unsigned char LINEAR_VALUES[13] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
static unsigned char wrap_values[13];

/* the arguments common to run() and search() (see the top of this file), then ``first`` and
 * ``limit`` where given (search) */
static int parse_problem(PyObject *args, Problem *p, int *first, long long *limit) {
    const char *gbuf;
    Py_ssize_t need_n, opt_n, weight_n, values_n, g_n, starts_n, ends_n, hints_n;
    if (!PyArg_ParseTuple(args, "y#y#y#iiiiiiy#y#y#y#y#y#LL|pL", &p->need, &need_n, &p->opt,
                          &opt_n, &p->weight, &weight_n, &p->jw, &p->jokers, &p->jokers_need,
                          &p->open_min, &p->canon, &p->wrap, &p->values, &values_n, &gbuf, &g_n,
                          &p->starts, &starts_n, &p->ends, &ends_n, &p->hints, &hints_n,
                          &p->blocks, &p->blocks_n, &p->target, &p->budget, first, limit))
        return -1;
    if (need_n != 60 || opt_n != 60 || starts_n != 60 || ends_n != 60 || hints_n != 60 ||
        weight_n != 15 || values_n != 13 || g_n % 8 || p->jokers > 15 || p->open_min > 127) {
        PyErr_SetString(PyExc_ValueError, "engine._dp: malformed problem");
        return -1;
    }
    p->guesses = (const uint16_t *)gbuf;
    p->n_guesses = g_n / 8;
    if (p->wrap && !g_n) { /* wrap mode without guesses: make them (and the order of values) */
        int cut;
        if (wrap_guesses_make(p->need, p->opt, p->jokers, &cut, 1)) {
            PyErr_NoMemory();
            return -1;
        }
        for (int i = 0; i < 13; i++) wrap_values[i] = LINEAR_VALUES[(cut + i) % 13];
        p->values = wrap_values;
        p->guesses = kept_buf;
        p->n_guesses = (Py_ssize_t)kept_n;
        p->all = guess_buf;
        p->n_all = (Py_ssize_t)guess_n;
        p->skipped = kept_skipped;
        gbuf = (const char *)kept_buf; /* the memo's keys number these */
        g_n = (Py_ssize_t)(kept_n * 8);
    } else {
        p->all = p->guesses;
        p->n_all = p->n_guesses;
        p->skipped = NULL;
    }
    uint64_t fp = mix64((uint64_t)p->jw | (uint64_t)p->jokers << 16 | (uint64_t)p->jokers_need << 24 |
                        (uint64_t)p->open_min << 32 | (uint64_t)p->canon << 40 |
                        (uint64_t)p->wrap << 41 | (uint64_t)g_n << 42 |
                        (uint64_t)(p->all != p->guesses) << 63); /* guesses made and thinned */
    const unsigned char *parts[] = {p->need, p->opt, p->weight, p->values, p->starts,
                                    p->ends, p->hints, p->blocks, (const unsigned char *)gbuf};
    Py_ssize_t lens[] = {60, 60, 15, 13, 60, 60, 60, p->blocks_n, g_n};
    for (int q = 0; q < 9; q++) {
        fp = mix64(fp ^ (uint64_t)lens[q]);
        for (Py_ssize_t i = 0; i < lens[q]; i++) fp = fp * 0x100000001b3ULL ^ parts[q][i];
    }
    p->fp = mix64(fp) | 1;
    return 0;
}

/* (status, states, score, melds, placed, jokers laid): with the chosen options of a play
 * (``opts`` per cell, ``js`` per value, under guess ``gi``) the play is rebuilt; ``score`` is
 * the internal one (every joker laid), returned without the table's own jokers */
static PyObject *answer(const Problem *p, int status, long long states, long long score,
                        uint64_t gi, const Opt **opts, const int *js) {
    if (!opts) return Py_BuildValue("(iLLOOi)", status, states, 0LL, Py_None, Py_None, 0);
    int jokers_used = 0;
    PyObject *placed = PyList_New(0);
    if (!placed) return NULL;
    PyObject *melds = rebuild(p->need, p->values, p->guesses + gi * 4, p->wrap, p->canon,
                              p->blocks, p->blocks_n, opts, js, &jokers_used, placed);
    if (!melds) {
        Py_DECREF(placed);
        return NULL;
    }
    return Py_BuildValue("(iLLNNi)", status, states, score - (long long)p->jokers_need * p->jw,
                         melds, placed, jokers_used);
}

/* The memo: per step and state without its joker count, an upper bound of what the rest can
 * add for each number of jokers left (MEMO_NONE: not known). It stays allocated between calls;
 * an epoch tells the entries of this call apart. With canonical jokers one joker more left is
 * worth exactly one joker more at the end, so a bound known for more jokers left also bounds
 * fewer (less ``jw`` per joker); without them, and no jokers needed, more jokers never hurt. */
#define MEMO_NONE INT32_MAX

typedef struct {
    uint64_t lo, hi;
    uint32_t epoch;
} MemoSlot;

static MemoSlot *memo = NULL;
static int32_t *memo_ub = NULL; /* memo_cap rows of memo_stride bounds */
static size_t memo_cap = 0, memo_n = 0, memo_ub_len = 0;
static uint32_t memo_epoch = 0;
static int memo_stride = 1;
static int memo_shift = 0;     /* bounds carry over to fewer jokers left: 0 no, 1 less memo_jw
                                  each, 2 as they are */
static long long memo_jw = 0;
static uint64_t memo_problem = 0; /* the problem whose search filled the memo (0: none) */

/* Twins: per step and state without the code of the colour decided last, the codes of that
 * colour the memo holds (up to TWIN_CODES; more: ``n`` counts on, the search then tries every
 * code that could dominate). Same epoch as the memo. */
#define TWIN_CODES 12
#define TWIN_EXTRA 2

typedef struct {
    uint64_t lo, hi;
    uint32_t epoch;
    uint16_t n;
    uint16_t code[TWIN_CODES];
} TwinSlot;

static TwinSlot *twins = NULL;
static size_t twins_cap = 0, twins_n = 0;

/* Other guesses (Stein): per step and state without its guess, the guesses (indexes) the memo
 * holds a row for (up to OTHER_GUESSES). A guess's crossing runs only matter at the very end,
 * where the runs still open must cover them (final_ok); when the guess g of a state covers the
 * guess h of a twin (code_dominates per colour), every valid end for g is one for h, so h's
 * bounds bound g too. The search proper (not a tie-break trial, whose answer depends on the
 * states it spends) prunes by them as by its own memo: the first best play is the same. Kept
 * and asked at the start of each value only (a lookup on every step costs more than it saves). */
#define OTHER_GUESSES 6

typedef struct {
    uint64_t lo, hi;
    uint32_t epoch;
    uint16_t n;
    uint32_t gi[OTHER_GUESSES];
} OtherSlot;

static int others_on = 1; /* engine._dp.other_guesses(flag): the tests compare without */
static int relax_on = 1;  /* engine._dp.relaxed(flag): the same for the relaxation (see relax) */
static OtherSlot *others = NULL;
static size_t others_cap = 0, others_n = 0;
static const u128 GUESS_BITS = (((u128)1 << 54) - 1) << SH_GUESS;

/* the hash of memo and twin keys (cheaper than hash128; the tables only need a spread) */
static inline uint64_t mhash(u128 k) {
    uint64_t h = (uint64_t)k ^ ((uint64_t)(k >> 64) * 0x9e3779b97f4a7c15ULL);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 32);
}

/* the tables a search starts with: they grow as it goes, and each search starts small again
 * (a table sized by an earlier large search would turn most lookups into cache misses). The
 * large table of the last search is kept as a spare: a search that grows to MEMO_JUMP entries
 * moves into it at once (its entries are all of older epochs, so empty to this search; fresh
 * memory would cost a page fault per page). */
#define MEMO_START (1 << 12)
#define MEMO_JUMP (1 << 15)
static MemoSlot *memo_spare = NULL;
static int32_t *memo_ub_spare = NULL;
static size_t memo_spare_cap = 0, memo_ub_spare_len = 0;
static TwinSlot *twins_spare = NULL;
static size_t twins_spare_cap = 0;
static OtherSlot *others_spare = NULL;
static size_t others_spare_cap = 0;

/* the room for a table growing to ``cap`` slots of ``size`` bytes: the spare when it is large
 * enough and ``cap`` reaches MEMO_JUMP (then *cap becomes its size), else fresh zeroed memory */
static void *table_room(void **spare, size_t *spare_cap, size_t *cap, size_t size) {
    if (*spare && *cap >= MEMO_JUMP && *spare_cap >= *cap) {
        void *room = *spare;
        *cap = *spare_cap;
        *spare = NULL;
        *spare_cap = 0;
        return room;
    }
    return calloc(*cap, size);
}

/* a table freed, and left empty */
static void drop(void **table, size_t *cap) {
    free(*table);
    *table = NULL;
    *cap = 0;
}

/* a table handed over as the spare (the old spare freed); the table itself is left empty */
static void to_spare(void **table, size_t *cap, void **spare, size_t *spare_cap) {
    free(*spare);
    *spare = *table;
    *spare_cap = *cap;
    *table = NULL;
    *cap = 0;
}

static int memo_reset(int stride) {
    if (memo_cap > MEMO_START) { /* kept as the spare: a large search takes it when it grows */
        to_spare((void **)&memo, &memo_cap, (void **)&memo_spare, &memo_spare_cap);
        to_spare((void **)&memo_ub, &memo_ub_len, (void **)&memo_ub_spare, &memo_ub_spare_len);
    }
    if (twins_cap > MEMO_START)
        to_spare((void **)&twins, &twins_cap, (void **)&twins_spare, &twins_spare_cap);
    if (others_cap > MEMO_START)
        to_spare((void **)&others, &others_cap, (void **)&others_spare, &others_spare_cap);
    if (!memo_cap) {
        memo_cap = MEMO_START;
        memo = calloc(memo_cap, sizeof(MemoSlot));
        if (!memo) {
            memo_cap = 0;
            return -1;
        }
    }
    if (memo_cap * (size_t)stride > memo_ub_len) {
        int32_t *p = realloc(memo_ub, memo_cap * (size_t)stride * sizeof(int32_t));
        if (!p) return -1;
        memo_ub = p;
        memo_ub_len = memo_cap * (size_t)stride;
    }
    memo_stride = stride;
    memo_problem = 0;
    memo_n = 0;
    twins_n = 0;
    others_n = 0;
    if (++memo_epoch == 0) { /* wrapped: forget every old entry for real */
        memset(memo, 0, memo_cap * sizeof(MemoSlot));
        if (twins_cap) memset(twins, 0, twins_cap * sizeof(TwinSlot));
        if (others_cap) memset(others, 0, others_cap * sizeof(OtherSlot));
        drop((void **)&memo_spare, &memo_spare_cap);
        drop((void **)&memo_ub_spare, &memo_ub_spare_len);
        drop((void **)&twins_spare, &twins_spare_cap);
        drop((void **)&others_spare, &others_spare_cap);
        memo_epoch = 1;
    }
    return 0;
}

static int memo_grow(void) {
    size_t cap = memo_cap * 2;
    int32_t *ub = NULL;
    if (memo_spare && cap >= MEMO_JUMP && memo_spare_cap >= cap &&
        memo_ub_spare_len >= memo_spare_cap * (size_t)memo_stride) {
        ub = memo_ub_spare;
        memo_ub_spare = NULL;
        memo_ub_spare_len = 0;
    }
    size_t ub_len;
    MemoSlot *fresh = ub ? table_room((void **)&memo_spare, &memo_spare_cap, &cap, sizeof(MemoSlot))
                         : calloc(cap, sizeof(MemoSlot));
    if (ub) {
        ub_len = cap * (size_t)memo_stride;
    } else {
        ub = malloc(cap * (size_t)memo_stride * sizeof(int32_t));
        ub_len = cap * (size_t)memo_stride;
    }
    if (!fresh || !ub) {
        free(fresh);
        free(ub);
        return -1;
    }
    for (size_t i = 0; i < memo_cap; i++) {
        if (memo[i].epoch != memo_epoch) continue;
        u128 k = (u128)memo[i].hi << 64 | memo[i].lo;
        size_t h = (size_t)mhash(k) & (cap - 1);
        while (fresh[h].epoch == memo_epoch) h = (h + 1) & (cap - 1);
        fresh[h] = memo[i];
        memcpy(ub + h * memo_stride, memo_ub + i * memo_stride, memo_stride * sizeof(int32_t));
    }
    free(memo);
    free(memo_ub);
    memo = fresh;
    memo_ub = ub;
    memo_cap = cap;
    memo_ub_len = ub_len;
    return 0;
}

/* the row of bounds of ``key`` (NULL: none yet) */
static inline int32_t *memo_row_h(u128 key, uint64_t hash) {
    uint64_t lo = (uint64_t)key, hi = (uint64_t)(key >> 64);
    size_t h = (size_t)hash & (memo_cap - 1);
    while (memo[h].epoch == memo_epoch) {
        if (memo[h].lo == lo && memo[h].hi == hi) return memo_ub + h * memo_stride;
        h = (h + 1) & (memo_cap - 1);
    }
    return NULL;
}

static inline int32_t *memo_row(u128 key) { return memo_row_h(key, mhash(key)); }

/* twice the room for twins (out of the search's hot path) */
static __attribute__((noinline)) int twins_grow(void) {
    size_t cap = twins_cap ? twins_cap * 2 : 1 << 12;
    TwinSlot *fresh = table_room((void **)&twins_spare, &twins_spare_cap, &cap, sizeof(TwinSlot));
    if (!fresh) return -1;
    for (size_t i = 0; i < twins_cap; i++) {
        if (twins[i].epoch != memo_epoch) continue;
        u128 k = (u128)twins[i].hi << 64 | twins[i].lo;
        size_t h = (size_t)mhash(k) & (cap - 1);
        while (fresh[h].epoch == memo_epoch) h = (h + 1) & (cap - 1);
        fresh[h] = twins[i];
    }
    free(twins);
    twins = fresh;
    twins_cap = cap;
    return 0;
}

/* the twin slot of ``key`` (its mhash ``hash``); ``add``: make it when missing */
static inline TwinSlot *twin_slot(u128 key, uint64_t hash, int add) {
    if (add && (twins_n + 1) * 2 > twins_cap && twins_grow()) return NULL;
    if (!twins_cap) return NULL;
    uint64_t lo = (uint64_t)key, hi = (uint64_t)(key >> 64);
    size_t h = (size_t)hash & (twins_cap - 1);
    while (twins[h].epoch == memo_epoch) {
        if (twins[h].lo == lo && twins[h].hi == hi) return &twins[h];
        h = (h + 1) & (twins_cap - 1);
    }
    if (!add) return NULL;
    twins[h].lo = lo;
    twins[h].hi = hi;
    twins[h].epoch = memo_epoch;
    twins[h].n = 0;
    twins_n++;
    return &twins[h];
}

/* the slot of other guesses of ``key`` (a memo key without its guess); ``add``: make it */
static inline OtherSlot *other_slot(u128 key, int add) {
    if (add && (others_n + 1) * 2 > others_cap) {
        size_t cap = others_cap ? others_cap * 2 : 1 << 12;
        OtherSlot *fresh =
            table_room((void **)&others_spare, &others_spare_cap, &cap, sizeof(OtherSlot));
        if (!fresh) return NULL;
        for (size_t i = 0; i < others_cap; i++) {
            if (others[i].epoch != memo_epoch) continue;
            u128 k = (u128)others[i].hi << 64 | others[i].lo;
            size_t h = (size_t)mhash(k) & (cap - 1);
            while (fresh[h].epoch == memo_epoch) h = (h + 1) & (cap - 1);
            fresh[h] = others[i];
        }
        free(others);
        others = fresh;
        others_cap = cap;
    }
    if (!others_cap) return NULL;
    uint64_t lo = (uint64_t)key, hi = (uint64_t)(key >> 64);
    size_t h = (size_t)mhash(key) & (others_cap - 1);
    while (others[h].epoch == memo_epoch) {
        if (others[h].lo == lo && others[h].hi == hi) return &others[h];
        h = (h + 1) & (others_cap - 1);
    }
    if (!add) return NULL;
    others[h].lo = lo;
    others[h].hi = hi;
    others[h].epoch = memo_epoch;
    others[h].n = 0;
    others_n++;
    return &others[h];
}

/* the bound a row gives for ``left`` jokers left (MEMO_NONE: none) */
static inline long long row_bound(const int32_t *row, int left) {
    long long b = row[left];
    if (memo_shift) {
        long long per = memo_shift == 1 ? memo_jw : 0;
        for (int j = left + 1; j < memo_stride; j++)
            if (row[j] != MEMO_NONE && row[j] - per * (j - left) < b) b = row[j] - per * (j - left);
    }
    return b;
}

/* whether the memo shows that state ``key`` before step t, with ``score`` so far, cannot reach
 * ``target`` */
static inline int memo_prunes(u128 key, int t, int left, long long score, long long target) {
    const int32_t *row = memo_row((key & ~((u128)15 << SH_U)) | ((u128)t << 120));
    if (!row) return 0;
    long long b = row_bound(row, left);
    return b != MEMO_NONE && score + b < target;
}

/* Look-ahead: jokers a state needs at least, so that a state (or option) that needs more than
 * it has left is dropped at once rather than cells later; it has no valid end, so both searches
 * keep the same answers (the Python reference has no look-ahead; the tests compare). Runs: every
 * short run (one or two long, or waiting after a joker) must go on to the next value of the pass,
 * a run of one to the value after too, on pieces there (needed or rack ones, or a locked run
 * starting there that absorbs it) or on jokers; past the last value linear runs cannot go on,
 * wrapping ones go on into the guessed crossing runs (not checked here). ``look_need`` is how
 * many jokers colour c needs for that with its runs ``code`` after value index vi (LOOK_DEAD: it
 * cannot). Groups: see look_groups. Joker uses of different runs and groups are distinct, so the
 * needs add up; pieces may be counted for several of them (a bound, not an assignment). */
typedef struct {
    int16_t a[13][4][2]; /* per value index and colour: pieces at the next value and the one
                            after (-1: no such value, linear runs; 64: past the end, wrap) */
    int16_t later[13][4]; /* per value index and colour: pieces of the later colours there */
} Ahead;

#define LOOK_DEAD 64

static inline int look_need(const Ahead *A, int vi, int c, unsigned code) {
    int n1 = code & 7, n2 = (code >> 3) & 7, gap = code >> 9;
    int go = n1 + n2 + gap;
    if (!go || vi < 0) return 0;
    int a1 = A->a[vi][c][0], a2 = A->a[vi][c][1];
    if (a1 < 0 || (n1 && a2 < 0)) return LOOK_DEAD;
    return (go > a1 ? go - a1 : 0) + (n1 && n1 > a2 ? n1 - a2 : 0);
}

/* the jokers every colour but ``skip`` needs at least in state ``key`` before cell (vi, c)
 * (colours before c are decided at vi, the others at vi - 1) */
static inline int look_others(const Ahead *A, int vi, int c, int skip, u128 key) {
    int n = 0;
    for (int d = 0; d < 4; d++)
        if (d != skip)
            n += look_need(A, d < c ? vi : vi - 1, d, (unsigned)((key >> (BITS * d)) & CODE_MASK));
    return n;
}

/* The groups of the value being decided: ``pieces`` collected so far (``most`` of one colour)
 * need at least max(most, 1) groups of three, made of these, the later colours' pieces of this
 * value and jokers. */
static inline int look_groups(const Ahead *A, int vi, int c, int pieces, int most) {
    if (!pieces) return 0;
    int d = 3 * (most > 1 ? most : 1) - pieces - A->later[vi][c];
    return d > 0 ? d : 0;
}

static void look_init(Ahead *A, const Problem *p) {
    for (int vi = 0; vi < 13; vi++) {
        int v = p->values[vi], n = 0;
        for (int c = 3; c >= 0; c--) {
            A->later[vi][c] = (int16_t)n;
            n += p->need[c * 15 + v] + p->opt[c * 15 + v];
        }
    }
    for (int vi = 0; vi < 13; vi++)
        for (int c = 0; c < 4; c++)
            for (int k = 0; k < 2; k++) {
                int wi = vi + 1 + k;
                if (wi >= 13) {
                    A->a[vi][c][k] = p->wrap ? 64 : -1;
                    continue;
                }
                int w = p->values[wi];
                int a = p->need[c * 15 + w] + p->opt[c * 15 + w] + p->starts[c * 15 + w];
                if (k) a += p->starts[c * 15 + p->values[vi + 1]];
                A->a[vi][c][k] = (int16_t)a;
            }
}

typedef struct Dfs Dfs;
struct Dfs {
    Problem p;
    int first_value;
    Ahead ahead;
    long long rest[53];
    long long best, stop_at, nodes, budget, limit;
    int limited;
    int cross; /* prune by the bounds of other guesses (see OtherSlot) */
    int relaxed; /* the relaxed search of relax (no guess index in its states, see there) */
    int relax_done; /* the relaxed search has run for this search proper */
    long long extra; /* states of the relaxed search: counted against the budget, not the limit */
    int aborted, done, oom;
    int32_t path[65], best_path[65];
    uint64_t gi, best_gi;
};

static Dfs *dfs_new(const Problem *p) {
    Dfs *x = calloc(1, sizeof(Dfs));
    if (x) x->p = *p;
    return x;
}
static void dfs_solve(Dfs *x, int first, long long limit, int fresh);
static PyObject *dfs_answer(Dfs *x, long long spent);

#ifndef RELAX_AFTER
#define RELAX_AFTER 1000 /* states of the search proper before the relaxed search runs */
#endif
#ifndef RELAX_LIMIT
#define RELAX_LIMIT 20000 /* states the relaxed search may cost at least */
#endif

#ifndef RUN_DFS_LIMIT
#define RUN_DFS_LIMIT 20000
#endif

/* ---- the pass ----------------------------------------------------------------------------- */

#define MAX_LAYERS 80

static PyObject *dp_run(PyObject *self, PyObject *args) {
    Problem pr;
    int first_unused = 0;
    long long limit_unused = -1;
    if (parse_problem(args, &pr, &first_unused, &limit_unused)) return NULL;
    const unsigned char *need = pr.need, *opt = pr.opt, *weight = pr.weight, *values = pr.values,
                        *starts = pr.starts, *ends = pr.ends, *hints = pr.hints;
    int jw = pr.jw, jokers = pr.jokers, jokers_need = pr.jokers_need, open_min = pr.open_min,
        canon = pr.canon, wrap = pr.wrap;
    long long target = pr.target, budget = pr.budget;
    const uint16_t *guesses = pr.guesses;
    Py_ssize_t n_guesses = pr.n_guesses;
    int steps = 13 * 4;
    long long rest[13 * 4 + 1];
    rest[steps] = 0;
    for (int i = steps - 1; i >= 0; i--) {
        int v = values[i / 4], c = i % 4;
        rest[i] = rest[i + 1] + (long long)opt[c * 15 + v] * weight[v];
    }
    target += (long long)jokers_need * jw;

    Layer hist[MAX_LAYERS];
    int nl = 0;
    long long spent = 0;
    int status = 0;
    PyObject *result = NULL;
    if (layer_init(&hist[0], (int32_t)n_guesses)) goto nomem;
    nl = 1;
    for (Py_ssize_t gi = 0; gi < n_guesses; gi++) {
        u128 key = (u128)gi << SH_GUESS;
        for (int c = 0; c < 4; c++) key |= (u128)guesses[gi * 4 + c] << (BITS * c);
        if (layer_offer(&hist[0], key, 0, -1, -1)) goto nomem;
    }
    int first_value = values[0];
    /* the upper bounds the last search of this very problem left in the memo prune too */
    int use_memo = memo_problem == pr.fp;
    if (use_memo && RUN_DFS_LIMIT) {
        /* that search goes on first: at this target (or above) it often settles quickly */
        Dfs *x = dfs_new(&pr);
        if (!x) goto nomem;
        dfs_solve(x, 0, RUN_DFS_LIMIT, 0);
        if (x->oom || !x->limited) {
            result = dfs_answer(x, x->nodes + x->extra);
            free(x);
            goto cleanup;
        }
        spent += x->nodes + x->extra;
        free(x);
        use_memo = memo_problem == pr.fp;
    }
    long long memo_asked = 0, memo_pruned = 0; /* lookups that prune rarely are given up */
    Ahead ahead;
    look_init(&ahead, &pr);
    for (int i = 0; i < steps; i++) {
        int v = values[i / 4], c = i % 4;
        int sh = BITS * c;
        int needc = need[c * 15 + v], o = opt[c * 15 + v], w = weight[v];
        int lead = wrap ? 13 : v - 1;
        if (canon && v < 12) lead = 0;
        int force = wrap && v == first_value;
        int bs = starts[c * 15 + v], be = ends[c * 15 + v];
        long long bound = target - rest[i + 1];
        Layer *cur = &hist[nl - 1];
        Layer *nxt = &hist[nl];
        if (layer_init(nxt, cur->n)) goto nomem;
        nl++;
        for (int32_t si = 0; si < cur->n; si++) {
            Entry *en = &cur->e[si];
            u128 key = en->key;
            int score = en->score;
            int used = (int)((key >> SH_U) & 15);
            if (score + (long long)(jokers - used) * jw + rest[i] < target) continue;
            if (use_memo) {
                memo_asked++;
                if (memo_prunes(key, 5 * (i / 4) + c, jokers - used, score, target)) {
                    memo_pruned++;
                    continue;
                }
                if (memo_asked >= 4096 && memo_pruned * 16 < memo_asked) use_memo = 0;
            }
            int code = (int)((key >> sh) & CODE_MASK);
            uint32_t ostart, ocount;
            if (cell_options(code, needc, o, jokers - used, lead, force, bs, be, canon, hints[c * 15 + v], &ostart,
                             &ocount))
                goto nomem;
            if (!ocount) continue;
            int most = (int)((key >> SH_M) & 7);
            u128 base = key - ((u128)code << sh);
            int ov = (int)((key >> SH_OV) & 127);
            int others = look_others(&ahead, i / 4, c, c, key); /* the look-ahead */
            int pieces0 = (int)((key >> SH_G) & 15);
            for (uint32_t k = 0; k < ocount; k++) {
                const Opt *op = &arena[ostart + k];
                if (others + look_need(&ahead, i / 4, c, op->new_code) +
                        look_groups(&ahead, i / 4, c, pieces0 + op->g, imax(most, op->g)) >
                    jokers - used - op->y)
                    continue;
                int ns = score + op->xo * w + op->y * jw;
                if (ns + (long long)(jokers - used - op->y) * jw < bound) continue;
                u128 nk = base + ((u128)op->new_code << sh) + ((u128)op->y << SH_U) +
                          ((u128)op->g << SH_G);
                if (op->g > most) nk += (u128)(op->g - most) << SH_M;
                if (open_min) {
                    int add = imin(open_min, ov + v * (needc + op->xo + op->y) - op->tri) - ov;
                    nk += (u128)add << SH_OV; /* add >= 0 always (tri <= lead pieces) */
                }
                if (layer_offer(nxt, nk, ns, si, (int32_t)(ostart + k))) goto nomem;
            }
        }
        if (dominate(nxt, c, canon && jokers, jw)) goto nomem;
        if (canon && jokers && pareto(nxt, jw)) goto nomem;
        spent += nxt->n;
        if (budget >= 0 && spent > budget) {
            status = 2;
            goto done;
        }
        if (c == 3) {
            cur = nxt;
            Layer *grp = &hist[nl];
            if (layer_init(grp, cur->n)) goto nomem;
            nl++;
            int js[16];
            for (int32_t si = 0; si < cur->n; si++) {
                Entry *en = &cur->e[si];
                u128 key = en->key;
                int pieces = (int)((key >> SH_G) & 15);
                int most = (int)((key >> SH_M) & 7);
                int used = (int)((key >> SH_U) & 15);
                if (use_memo && memo_prunes(key, 5 * (i / 4) + 4, jokers - used, en->score, target))
                    continue;
                u128 base = key & ~(((u128)15 << SH_G) | ((u128)7 << SH_M));
                int ov = (int)((key >> SH_OV) & 127);
                int nj = group_jokers(pieces, most, jokers - used, canon, js);
                int runs = look_others(&ahead, i / 4, 4, -1, key); /* the look-ahead */
                for (int q = 0; q < nj; q++) {
                    int j = js[q];
                    if (runs > jokers - used - j) continue;
                    int ns = en->score + j * jw;
                    u128 nk = base + ((u128)j << SH_U);
                    if (open_min && j) nk += (u128)(imin(open_min, ov + v * j) - ov) << SH_OV;
                    if (layer_offer(grp, nk, ns, si, j)) goto nomem;
                }
            }
            if (canon && jokers && pareto(grp, jw)) goto nomem;
            nxt = grp;
        }
        if (!nxt->n) goto done;
    }
    {
        Layer *last = &hist[nl - 1];
        int32_t best_i = -1;
        long long best = 0;
        for (int32_t si = 0; si < last->n; si++) {
            Entry *en = &last->e[si];
            u128 key = en->key;
            int used = (int)((key >> SH_U) & 15);
            if (used < jokers_need && !canon) continue;
            if (open_min && (int)((key >> SH_OV) & 127) < open_min) continue;
            int bad = 0;
            for (int c = 0; c < 4; c++) {
                unsigned code = (unsigned)((key >> (BITS * c)) & CODE_MASK);
                if (wrap) {
                    uint64_t gi = (uint64_t)(key >> SH_GUESS);
                    unsigned gc = guesses[gi * 4 + c];
                    if (!code_dominates(code, gc)) bad = 1;
                } else if (code & OPEN_ENDS) {
                    bad = 1;
                }
            }
            if (bad) continue;
            long long score = en->score;
            if (canon) score += (long long)(jokers - used) * jw;
            if (score >= target && (best_i < 0 || score > best)) {
                best = score;
                best_i = si;
            }
        }
        if (best_i < 0) goto done;
        /* back-trace the chosen options */
        const Opt *opts[52];
        int js[13];
        int32_t idx = best_i;
        for (int l = nl - 1; l >= 1; l--) {
            Entry *en = &hist[l].e[idx];
            /* group layers are every fifth after the first: layers 5, 10, ... */
            if (l % 5 == 0)
                js[l / 5 - 1] = en->dec;
            else
                opts[l - 1 - (l - 1) / 5] = &arena[en->dec];
            idx = en->prev;
        }
        uint64_t gi = (uint64_t)(hist[0].e[idx].key >> SH_GUESS);
        result = answer(&pr, 1, spent, best, gi, opts, js);
        goto cleanup;
    }
done:
    result = answer(&pr, status, spent, 0, 0, NULL, NULL);
    goto cleanup;
nomem:
    PyErr_NoMemory();
    result = NULL;
cleanup:
    for (int l = 0; l < nl; l++) layer_free(&hist[l]);
    return result;
}


/* ---- the search: depth first, branch and bound, with a memo of upper bounds ---------------- */

#define NEG (-1000000000LL)


static int memo_get(u128 key, uint64_t hash, int left, long long *ub) {
    int32_t *row = memo_row_h(key, hash);
    if (!row) return 0;
    long long b = row_bound(row, left);
    if (b == MEMO_NONE) return 0;
    *ub = b;
    return 1;
}

/* the colour decided last before step t > 0, from c = t % 5 (the group step decides none:
 * colour 3): (t - 1) % 5 is c - 1, or 4 (the group step) when c is 0 */
static inline int twin_colour_c(int c) { return c ? c - 1 : 3; }

/* ``hm``: mhash(key); ``ht``: mhash of its twin base (t > 0) */
static void memo_put(Dfs *x, u128 key, uint64_t hm, uint64_t ht, int t, int left, long long ub) {
    if ((memo_n + 1) * 2 > memo_cap && memo_grow()) {
        x->oom = 1;
        return;
    }
    uint64_t lo = (uint64_t)key, hi = (uint64_t)(key >> 64);
    size_t h = (size_t)hm & (memo_cap - 1);
    while (memo[h].epoch == memo_epoch) {
        if (memo[h].lo == lo && memo[h].hi == hi) {
            int32_t *row = memo_ub + h * memo_stride;
            if (ub < row[left]) row[left] = (int32_t)ub;
            return;
        }
        h = (h + 1) & (memo_cap - 1);
    }
    memo[h] = (MemoSlot){lo, hi, memo_epoch};
    int32_t *row = memo_ub + h * memo_stride;
    for (int j = 0; j < memo_stride; j++) row[j] = MEMO_NONE;
    row[left] = (int32_t)ub;
    memo_n++;
    if (x->cross && t && t % 5 == 0) {
        OtherSlot *o = other_slot(key & ~GUESS_BITS, 1);
        if (!o) {
            x->oom = 1;
            return;
        }
        if (o->n < OTHER_GUESSES) o->gi[o->n++] = (uint32_t)x->gi;
    }
    if (t) {
        int sh = BITS * twin_colour_c(t % 5);
        TwinSlot *g = twin_slot(key & ~((u128)CODE_MASK << sh), ht, 1);
        if (!g) {
            x->oom = 1;
            return;
        }
        if (g->n < TWIN_CODES) g->code[g->n] = (uint16_t)((key >> sh) & CODE_MASK);
        if (g->n < 65535) g->n++;
    }
}

/* The relaxed search (Stein, see relax): the runs open at the end of colour c need only cover
 * the crossing runs of that colour in some guess, not in the guess the pass started from.
 * relaxed_ends[c][code]: 0 not known yet, 1 no, 2 yes. */
static uint8_t relaxed_ends[4][4096];

static int relaxed_end(const Dfs *x, int c, unsigned code) {
    uint8_t *known = &relaxed_ends[c][code & 4095];
    if (!*known) {
        *known = 1;
        for (Py_ssize_t gi = 0; gi < x->p.n_guesses; gi++)
            if (code_dominates(code, x->p.guesses[gi * 4 + c])) {
                *known = 2;
                break;
            }
    }
    return *known == 2;
}

/* The memo the relaxed search left (its bounds bound every guess, see relax): kept while the
 * search proper that made it runs. */
static MemoSlot *rmemo = NULL;
static int32_t *rmemo_ub = NULL;
static size_t rmemo_cap = 0;
static uint32_t rmemo_epoch = 0;

static void rmemo_free(void) {
    free(rmemo);
    free(rmemo_ub);
    rmemo = NULL;
    rmemo_ub = NULL;
    rmemo_cap = 0;
}

/* the relaxed bound of memo key ``key`` (with the guess bits cleared) for ``left`` jokers left
 * (MEMO_NONE: none) */
static inline long long rmemo_bound(u128 key, int left) {
    uint64_t lo = (uint64_t)key, hi = (uint64_t)(key >> 64);
    size_t h = (size_t)mhash(key) & (rmemo_cap - 1);
    while (rmemo[h].epoch == rmemo_epoch) {
        if (rmemo[h].lo == lo && rmemo[h].hi == hi) return row_bound(rmemo_ub + h * memo_stride, left);
        h = (h + 1) & (rmemo_cap - 1);
    }
    return MEMO_NONE;
}

static int final_ok(const Dfs *x, u128 key) {
    int used = (int)((key >> SH_U) & 15);
    if (used < x->p.jokers_need && !x->p.canon) return 0;
    if (x->p.open_min && (int)((key >> SH_OV) & 127) < x->p.open_min) return 0;
    for (int c = 0; c < 4; c++) {
        unsigned code = (unsigned)((key >> (BITS * c)) & CODE_MASK);
        if (x->relaxed) {
            if (!relaxed_end(x, c, code)) return 0;
        } else if (x->p.wrap) {
            unsigned gc = x->p.guesses[x->gi * 4 + c];
            if (!code_dominates(code, gc)) return 0; /* the runs open at the end carry on
                                                         into the guessed crossing runs */
        } else if (code & OPEN_ENDS) {
            return 0;
        }
    }
    return 1;
}

/* the most the rest of the pass can still add from node t (steps: 5 per value, the fifth
 * closes the groups); returns an upper bound (NEG: no valid end from here) */
static long long dfs(Dfs *x, int t, u128 key, long long s, int look) {
    if (x->done || x->aborted || x->oom) return NEG;
    int used = (int)((key >> SH_U) & 15);
    int jw = x->p.jw;
    if (t == 65) {
        if (!final_ok(x, key)) return NEG;
        long long f = x->p.canon ? (long long)(x->p.jokers - used) * jw : 0;
        if (s + f > x->best) {
            x->best = s + f;
            memcpy(x->best_path, x->path, sizeof(x->path));
            x->best_gi = x->gi;
            if (x->best >= x->stop_at) x->done = 1;
        }
        return f;
    }
    int vi = t / 5, c = t % 5;
#ifdef LOOK_CHECK
    if (look != look_others(&x->ahead, vi, c, -1, key)) { fprintf(stderr, "LOOK MISMATCH t=%d\n", t); abort(); }
#endif
    long long qb = x->rest[vi * 4 + c] + (long long)(x->p.jokers - used) * jw; /* c = 4: the next
                                                                                  value's rest */
    if (s + qb <= x->best) return qb;
    u128 mkey = (key & ~U_MASK) | ((u128)t << 120);
    int left = x->p.jokers - used;
    long long known;
    uint64_t hm = mhash(mkey), ht = 0;
    if (memo_get(mkey, hm, left, &known)) {
        if (s + known <= x->best) return known;
    }
    if (x->relax_done == 2) { /* the relaxed bounds hold for every guess */
        long long r = rmemo_bound(mkey & ~GUESS_BITS, left);
        if (r != MEMO_NONE && s + r <= x->best) return r;
    }
    if (x->cross && t && t % 5 == 0) { /* at the start of a value only: cheap enough */
        const OtherSlot *o = other_slot(mkey & ~GUESS_BITS, 0);
        if (o) {
            const uint16_t *g = x->p.guesses + x->gi * 4;
            for (int q = 0; q < o->n; q++) {
                uint32_t gj = o->gi[q];
                if (gj == x->gi) continue;
                const uint16_t *h = x->p.guesses + (size_t)gj * 4;
                if (!code_dominates(g[0], h[0]) || !code_dominates(g[1], h[1]) ||
                    !code_dominates(g[2], h[2]) || !code_dominates(g[3], h[3]))
                    continue;
                int32_t *row = memo_row((mkey & ~GUESS_BITS) | ((u128)gj << SH_GUESS));
                long long b = row ? row_bound(row, left) : MEMO_NONE;
                if (b != MEMO_NONE && s + b <= x->best) return b;
            }
        }
    }
    if (t) {
        /* a twin that differs only in the colour decided last and can do everything this
         * state can (see dominate) bounds it too */
        int sh = BITS * twin_colour_c(c);
        unsigned b = (unsigned)((key >> sh) & CODE_MASK);
        u128 tbase = mkey & ~((u128)CODE_MASK << sh);
        ht = mhash(tbase);
        const TwinSlot *g = twin_slot(tbase, ht, 0);
        if (g && g->n <= TWIN_CODES) {
            for (int q = 0; q < g->n; q++) {
                unsigned a = g->code[q];
                if (a == b || !code_dominates(a, b)) continue;
                int32_t *row = memo_row(tbase | ((u128)a << sh));
                long long tbd = row ? row_bound(row, left) : MEMO_NONE;
                if (tbd != MEMO_NONE && s + tbd <= x->best) {
                    return tbd;
                }
            }
        } else if (g) {
            int b1 = b & 7, b2 = (b >> 3) & 7, b3 = (b >> 6) & 7;
            int tb = b1 + b2 + b3, tmax = imin(7, tb + TWIN_EXTRA);
            for (int a1 = 0; a1 <= b1; a1++)
                for (int a2 = 0; a1 + a2 <= b1 + b2; a2++)
                    for (int a3 = imax(b3, imax(b2 + b3 - a2, tb - a1 - a2)); a1 + a2 + a3 <= tmax;
                         a3++) {
                        if (a1 == b1 && a2 == b2 && a3 == b3) continue;
                        unsigned a = (unsigned)(a1 | a2 << 3 | a3 << 6) | (b & ~511u);
                                int32_t *row = memo_row(tbase | ((u128)a << sh));
                        long long tbd = row ? row_bound(row, left) : MEMO_NONE;
                        if (tbd != MEMO_NONE && s + tbd <= x->best) {
                                    return tbd;
                        }
                    }
        }
    }
    if (++x->nodes + x->extra > x->budget && x->budget >= 0) {
        x->aborted = 1;
        return NEG;
    }
    if (x->limit >= 0 && x->nodes > x->limit) {
        x->aborted = x->limited = 1;
        return NEG;
    }
    long long ub = NEG;
    int v = x->p.values[vi];
    if (c < 4) {
        int sh = BITS * c;
        int needc = x->p.need[c * 15 + v], o = x->p.opt[c * 15 + v], w = x->p.weight[v];
        int lead = x->p.wrap ? 13 : v - 1;
        if (x->p.canon && v < 12) lead = 0;
        int force = x->p.wrap && v == x->first_value;
        int bs = x->p.starts[c * 15 + v], be = x->p.ends[c * 15 + v];
        int code = (int)((key >> sh) & CODE_MASK);
        uint32_t ostart, ocount;
        if (cell_options(code, needc, o, x->p.jokers - used, lead, force, bs, be, x->p.canon,
                         x->p.hints[c * 15 + v], &ostart,
                         &ocount)) {
            x->oom = 1;
            return NEG;
        }
        int most = (int)((key >> SH_M) & 7);
        u128 base = key - ((u128)code << sh);
        int ov = (int)((key >> SH_OV) & 127);
        const Ahead *A = &x->ahead;
        /* the look-ahead; ``look`` is look_others(A, vi, c, -1, key), kept up by the caller */
        int others = look - look_need(A, vi - 1, c, (unsigned)code);
        int pieces0 = (int)((key >> SH_G) & 15);
        /* the quick bound of the next step (its first test), here: gain + that bound is
         * xo * w + qnext whatever the jokers laid, and the options come by xo falling, so the
         * first option it drops drops all later ones too (with the same bound, as they would) */
        long long qnext = x->rest[vi * 4 + c + 1] + (long long)left * jw;
        for (uint32_t k = 0; k < ocount; k++) {
            const Opt *op = &arena[ostart + k];
            int lk = others + look_need(A, vi, c, op->new_code);
            if (lk + look_groups(A, vi, c, pieces0 + op->g, imax(most, op->g)) > left - op->y)
                continue;
            int gain = op->xo * w + op->y * jw;
            if (s + op->xo * w + qnext <= x->best) {
                if (op->xo * w + qnext > ub) ub = op->xo * w + qnext;
                break;
            }
            u128 nk = base + ((u128)op->new_code << sh) + ((u128)op->y << SH_U) +
                      ((u128)op->g << SH_G);
            if (op->g > most) nk += (u128)(op->g - most) << SH_M;
            if (x->p.open_min) {
                int add = imin(x->p.open_min, ov + v * (needc + op->xo + op->y) - op->tri) - ov;
                nk += (u128)add << SH_OV;
            }
            x->path[t] = (int32_t)(ostart + k);
            long long r = dfs(x, t + 1, nk, s + gain, lk);
            if (r > NEG && gain + r > ub) ub = gain + r;
            if (x->done || x->aborted || x->oom) return NEG;
        }
    } else {
        int pieces = (int)((key >> SH_G) & 15);
        int most = (int)((key >> SH_M) & 7);
        u128 base = key & ~(((u128)15 << SH_G) | ((u128)7 << SH_M));
        int ov = (int)((key >> SH_OV) & 127);
        int js[16];
        int nj = group_jokers(pieces, most, x->p.jokers - used, x->p.canon, js);
        int runs = look; /* the look-ahead: look_others(&x->ahead, vi, 4, -1, key) */
        for (int q = 0; q < nj; q++) {
            int j = js[q];
            if (runs > left - j) continue;
            u128 nk = base + ((u128)j << SH_U);
            if (x->p.open_min && j) nk += (u128)(imin(x->p.open_min, ov + v * j) - ov) << SH_OV;
            x->path[t] = j;
            long long r = dfs(x, t + 1, nk, s + (long long)j * jw, runs);
            if (r > NEG && (long long)j * jw + r > ub) ub = (long long)j * jw + r;
            if (x->done || x->aborted || x->oom) return NEG;
        }
    }
    memo_put(x, mkey, hm, ht, t, left, ub);
    return ub;
}

/* The tables of the memo, twins and other guesses, set aside while the relaxed search uses its
 * own (see relax). */
typedef struct {
    MemoSlot *memo;
    int32_t *memo_ub;
    size_t memo_cap, memo_n, memo_ub_len;
    uint32_t memo_epoch;
    int memo_stride, memo_shift;
    long long memo_jw;
    uint64_t memo_problem;
    TwinSlot *twins;
    size_t twins_cap, twins_n;
    OtherSlot *others;
    size_t others_cap, others_n;
} Tables;

static void tables_set_aside(Tables *t) {
    *t = (Tables){memo,         memo_ub,   memo_cap,  memo_n, memo_ub_len, memo_epoch,
                  memo_stride,  memo_shift, memo_jw,  memo_problem, twins, twins_cap,
                  twins_n,      others,    others_cap, others_n};
    memo = NULL;
    memo_ub = NULL;
    memo_cap = memo_n = memo_ub_len = 0;
    twins = NULL;
    twins_cap = twins_n = 0;
    others = NULL;
    others_cap = others_n = 0;
}

/* back to the tables set aside; the relaxed search's memo becomes rmemo */
static void tables_restore(const Tables *t) {
    rmemo_free();
    rmemo = memo;
    rmemo_ub = memo_ub;
    rmemo_cap = memo_cap;
    rmemo_epoch = memo_epoch;
    free(twins);
    free(others);
    memo = t->memo;
    memo_ub = t->memo_ub;
    memo_cap = t->memo_cap;
    memo_n = t->memo_n;
    memo_ub_len = t->memo_ub_len;
    memo_epoch = t->memo_epoch;
    memo_stride = t->memo_stride;
    memo_shift = t->memo_shift;
    memo_jw = t->memo_jw;
    memo_problem = t->memo_problem;
    twins = t->twins;
    twins_cap = t->twins_cap;
    twins_n = t->twins_n;
    others = t->others;
    others_cap = t->others_cap;
    others_n = t->others_n;
}

static void dfs_solve(Dfs *x, int first, long long limit, int fresh);

/* Stein, the search proper, once it has a play and has spent RELAX_AFTER states: a relaxation
 * of the problem, one search from the crossing runs of every guess at once whose runs open at
 * the end of each colour need only cover that colour's crossing runs in some guess
 * (relaxed_end). Every play of the real problem (a guess, and an end covering it) is one of
 * the relaxation, so the bounds it finds bound every guess: without a relaxed play better than
 * the best one (0) the search stops, otherwise (1) its memo (rmemo, one for all guesses, which
 * keeps it cheap) prunes the search proper from then on, as its own memo does: exact pruning,
 * the same first best play. Its states count against the budget, not the limit (the search
 * proper spends no more states than before within its limit). The memo of the search proper
 * is set aside meanwhile (its epoch too: the relaxed one is newer, and gone with it). */
static int relax(Dfs *x) {
    x->relax_done = 1;
    Dfs *y = calloc(1, sizeof(Dfs));
    if (!y) return 1;
    y->p = x->p;
    y->relaxed = 1;
    /* the best relaxed play, if better than the best one (internal scores: jokers laid count),
     * searched through (a memo of bounds for every state that might beat the best play) */
    y->p.target = x->best + 1 - (long long)x->p.jokers_need * x->p.jw;
    y->p.budget = x->p.budget < 0 ? -1 : x->p.budget - x->nodes - x->extra;
    memset(relaxed_ends, 0, sizeof(relaxed_ends));
    Tables aside;
    tables_set_aside(&aside);
    dfs_solve(y, 0, x->nodes > RELAX_LIMIT ? x->nodes : RELAX_LIMIT, 1);
    tables_restore(&aside);
    x->extra += y->nodes;
    int verdict = 1;
    if (y->oom) {
        x->oom = 1;
    } else if (y->aborted && !y->limited) {
        x->aborted = 1; /* the budget ran out */
    } else {
        if (!y->aborted && y->best <= x->best) verdict = 0;
        if (rmemo_cap) x->relax_done = 2;
    }
    free(y);
    return verdict;
}

/* the search proper, into *x (its problem parsed): the best play of at least ``target`` (first:
 * the first one reaching it) within ``limit`` states; ``fresh``: start a new memo, else go on
 * with the one the last search of this problem left */
static void dfs_solve(Dfs *x, int first, long long limit, int fresh) {
    const unsigned char *values = x->p.values, *opt = x->p.opt, *weight = x->p.weight;
    if (fresh && memo_reset(x->p.jokers + 1)) {
        x->oom = 1;
        return;
    }
    x->cross = others_on && !first && !x->relaxed && x->p.wrap && x->p.n_guesses > 1;
    memo_shift = x->p.canon ? 1 : x->p.jokers_need ? 0 : 2;
    memo_jw = x->p.jw;
    x->first_value = values[0];
    look_init(&x->ahead, &x->p);
    x->budget = x->p.budget;
    x->limit = limit;
    x->rest[52] = 0;
    for (int i = 51; i >= 0; i--) {
        int v = values[i / 4], c = i % 4;
        x->rest[i] = x->rest[i + 1] + (long long)opt[c * 15 + v] * weight[v];
    }
    long long target = x->p.target + (long long)x->p.jokers_need * x->p.jw;
    x->best = target - 1;
    x->stop_at = first ? target : x->rest[0] + (long long)x->p.jokers * x->p.jw;
    /* only under a budget that ends the search before its limit would: then the search proper
     * either finishes (with the same first best play) or runs out of budget, and never hands
     * over to the layered pass, whose play may differ among the best ones (nor when it goes on
     * with the memo of an earlier search, ahead of that pass) */
    int relaxable = relax_on && fresh && !first && !x->relaxed && x->p.wrap &&
                    x->p.n_guesses > 1 && x->p.budget >= 0 && (limit < 0 || x->p.budget <= limit);
    for (Py_ssize_t gi = 0; gi < x->p.n_guesses && !x->done && !x->aborted && !x->oom; gi++) {
        u128 key = x->relaxed ? 0 : (u128)gi << SH_GUESS;
        for (int c = 0; c < 4; c++) key |= (u128)x->p.guesses[gi * 4 + c] << (BITS * c);
        x->gi = (uint64_t)gi;
        dfs(x, 0, key, 0, 0); /* look_others before the first value: 0 */
        if (relaxable && !x->relax_done && gi + 1 < x->p.n_guesses && x->best >= target &&
            x->nodes >= RELAX_AFTER && !x->done && !x->aborted && !x->oom && !relax(x))
            x->done = 1; /* no guess left has a play better than the best one */
    }
    if (x->relax_done) rmemo_free();
    memo_problem = x->oom ? 0 : x->p.fp;
}

/* the answer of a search (status 3 when ``limit`` cut it short) */
static PyObject *dfs_answer(Dfs *x, long long spent) {
    long long target = x->p.target + (long long)x->p.jokers_need * x->p.jw;
    if (x->oom) return PyErr_NoMemory();
    if (x->aborted && !x->limited) return answer(&x->p, 2, spent, 0, 0, NULL, NULL);
    if (x->best < target) return answer(&x->p, x->limited ? 3 : 0, spent, 0, 0, NULL, NULL);
    const Opt *opts[52];
    int js[13];
    for (int t = 0; t < 65; t++) {
        if (t % 5 == 4)
            js[t / 5] = x->best_path[t];
        else
            opts[(t / 5) * 4 + t % 5] = &arena[x->best_path[t]];
    }
    return answer(&x->p, x->limited ? 3 : 1, spent, x->best, x->best_gi, opts, js);
}

/* a tie-break trial's play was found under kept guess x->best_gi after x->nodes states: whether
 * the search over every guess (see dp_search) would get there, which the guesses left out
 * before that guess decide (each searched on its own, none has a play): 0 yes (their states are
 * added to x->nodes), 1 no (cut short by ``limit``), 2 no (the budget ran out), -1 out of
 * memory */
static int skipped_cut_short(Dfs *x, long long limit) {
    size_t upto = (size_t)x->best_gi + x->p.skipped[x->best_gi]; /* its place in the full list */
    uint16_t *left_out = malloc((upto + 1) * 4 * sizeof(uint16_t));
    if (!left_out) return -1;
    size_t n = 0, kept = 0;
    for (size_t i = 0; i < upto; i++) {
        if (kept < (size_t)x->p.n_guesses && kept + x->p.skipped[kept] == i) {
            kept++;
            continue;
        }
        memcpy(left_out + n * 4, x->p.all + i * 4, 4 * sizeof(uint16_t));
        n++;
    }
    Dfs *y = calloc(1, sizeof(Dfs));
    if (!y) {
        free(left_out);
        return -1;
    }
    y->p = x->p;
    y->p.guesses = left_out;
    y->p.n_guesses = (Py_ssize_t)n;
    y->p.skipped = NULL;
    y->p.budget = x->p.budget < 0 ? -1 : x->p.budget - x->nodes;
    dfs_solve(y, 1, limit < 0 ? -1 : limit - x->nodes, 1);
    int cut = y->oom ? -1 : y->limited ? 1 : y->aborted ? 2 : 0;
    x->nodes += y->nodes;
    memo_problem = 0;
    free(y);
    free(left_out);
    return cut;
}

/* A tie-break trial (``first``) answers "no" when ``limit`` runs out, so its answer depends on
 * the states the search spends, and the guesses left out (see guess_jokers) would have cost
 * some: the answer is that of the search over every guess, which we know without running it.
 * Each guess is searched on its own (memo and twins carry its index; until a play is found
 * nothing else is shared), so that search spends, up to any guess, the states spent here plus
 * those of the guesses left out before it, and finds the same first play (a guess left out has
 * none). No play here: none there either (cut short here, it is cut short there no later). A
 * play under a guess with guesses left out before it: the search over those guesses alone,
 * within the states the limit leaves, tells whether that search gets there in time. */
static void trial_search(Dfs *x, long long limit) {
    dfs_solve(x, 1, limit, 1);
    if (x->p.n_all <= x->p.n_guesses || x->oom || (x->aborted && !x->limited)) return;
    long long target = x->p.target + (long long)x->p.jokers_need * x->p.jw;
    if (x->best >= target && x->p.skipped[x->best_gi]) {
        int cut = skipped_cut_short(x, limit);
        if (cut < 0) x->oom = 1;
        if (cut > 0) { /* cut short before its play: no answer */
            x->best = target - 1;
            x->aborted = 1;
            x->limited = cut == 1;
        }
    }
}

static PyObject *dp_search(PyObject *self, PyObject *args) {
    int first = 0;
    long long limit = -1;
    Dfs *x = calloc(1, sizeof(Dfs));
    if (!x) return PyErr_NoMemory();
    if (parse_problem(args, &x->p, &first, &limit)) {
        free(x);
        return NULL;
    }
    if (first)
        trial_search(x, limit);
    else
        dfs_solve(x, 0, limit, 1);
    PyObject *result = dfs_answer(x, x->nodes + x->extra);
    free(x);
    return result;
}

/* a result tuple with ``extra`` appended (steals ``result``) */
static PyObject *with_case(PyObject *result, int extra) {
    if (!result) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(result);
    PyObject *out = PyTuple_New(n + 1);
    if (!out) {
        Py_DECREF(result);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(result, i);
        Py_INCREF(item);
        PyTuple_SET_ITEM(out, i, item);
    }
    PyTuple_SET_ITEM(out, n, PyLong_FromLong(extra));
    Py_DECREF(result);
    return out;
}

/* trials(the problem as for search, target, budget, limit, cases): the tie-break trials of
 * engine/solver.py (``_keep_more``: keep one more table meld exactly), in order until one has a
 * play. Each case is a record (n, jokers, add, block, then n cells): take those n needed pieces
 * and ``jokers`` needed jokers out of the problem, put one needed piece back at cell ``add``
 * (255: none), drop locked block number ``block`` (255: none); it is then searched as
 * ``search`` with ``first`` set, within ``limit`` states (``budget`` counts the states of all
 * cases). With wrap-around runs (Stein) each record is followed by the 60 order hints of the
 * case's own table (``hints`` above), and each case gets the cut and the guesses a search of it
 * alone would make, so that it is searched exactly as ``search`` would search it.
 * -> (status, states, score, melds, placed, jokers laid, case): status 1 and the play of
 * the first case that has one; 0 and case -1 when none has; 2 when the budget ran out. */
static PyObject *dp_trials(PyObject *self, PyObject *args) {
    if (PyTuple_GET_SIZE(args) != 19) {
        PyErr_SetString(PyExc_TypeError, "engine._dp.trials takes 19 arguments");
        return NULL;
    }
    PyObject *head = PyTuple_GetSlice(args, 0, 17);
    if (!head) return NULL;
    Problem base;
    int first_unused = 0;
    long long limit_unused = -1;
    int bad = parse_problem(head, &base, &first_unused, &limit_unused);
    Py_DECREF(head);
    if (bad) return NULL;
    long long limit = PyLong_AsLongLong(PyTuple_GET_ITEM(args, 17));
    if (limit == -1 && PyErr_Occurred()) return NULL;
    char *cases;
    Py_ssize_t cases_n;
    if (PyBytes_AsStringAndSize(PyTuple_GET_ITEM(args, 18), &cases, &cases_n)) return NULL;
    const unsigned char *rec = (const unsigned char *)cases;
    unsigned char need[60], starts[60], ends[60];
    unsigned char *blocks = malloc((size_t)base.blocks_n + 1);
    if (!blocks) return PyErr_NoMemory();
    long long spent = 0;
    PyObject *result = NULL;
    int k = 0;
    Py_ssize_t pos = 0;
    for (; pos < cases_n; k++) {
        int nc = pos + 4 <= cases_n ? rec[pos] : -1;
        if (nc < 0 || pos + 4 + nc > cases_n) break;
        int jokers = rec[pos + 1], add = rec[pos + 2], drop = rec[pos + 3];
        const unsigned char *cells = rec + pos + 4;
        pos += 4 + nc;
        const unsigned char *hints = base.hints;
        if (base.wrap) { /* then the hints of the case follow */
            if (pos + 60 > cases_n) {
                pos = -1; /* malformed */
                break;
            }
            hints = rec + pos;
            pos += 60;
        }
        memcpy(need, base.need, 60);
        memcpy(starts, base.starts, 60);
        memcpy(ends, base.ends, 60);
        int ok = jokers <= base.jokers_need;
        for (int i = 0; i < nc && ok; i++) {
            if (cells[i] >= 60 || !need[cells[i]])
                ok = 0;
            else
                need[cells[i]]--;
        }
        if (add != 255) {
            if (add >= 60) break;
            need[add]++;
        }
        Py_ssize_t blocks_n = 0;
        for (Py_ssize_t b = 0, r = 0; b + 4 <= base.blocks_n; r++) {
            const unsigned char *block = base.blocks + b;
            Py_ssize_t size = 4 + block[3];
            if (r == drop) {
                starts[block[0] * 15 + block[1]]--;
                ends[block[0] * 15 + block[2]]--;
            } else {
                memcpy(blocks + blocks_n, block, (size_t)size);
                blocks_n += size;
            }
            b += size;
        }
        if (!ok) continue;
        Problem p = base;
        p.need = need;
        p.starts = starts;
        p.ends = ends;
        p.blocks = blocks;
        p.blocks_n = blocks_n;
        p.jokers -= jokers;
        p.jokers_need -= jokers;
        p.hints = hints;
        p.budget = base.budget < 0 ? -1 : (spent < base.budget ? base.budget - spent : 0);
        if (p.wrap) { /* the cut and the guesses depend on the pieces: made for each case */
            int cut;
            if (wrap_guesses_make(p.need, p.opt, p.jokers, &cut, 1)) {
                PyErr_NoMemory();
                break;
            }
            for (int i = 0; i < 13; i++) wrap_values[i] = LINEAR_VALUES[(cut + i) % 13];
            p.values = wrap_values;
            p.guesses = kept_buf;
            p.n_guesses = (Py_ssize_t)kept_n;
            p.all = guess_buf;
            p.n_all = (Py_ssize_t)guess_n;
            p.skipped = kept_skipped;
        }
        Dfs *x = dfs_new(&p);
        if (!x) {
            PyErr_NoMemory();
            break;
        }
        trial_search(x, limit);
        memo_problem = 0; /* the memo belongs to this case, not to the problem given */
        spent += x->nodes;
        long long target = p.target + (long long)p.jokers_need * p.jw;
        if (x->best >= target) /* a play reaching the target is the answer, limit or not */
            x->aborted = x->limited = 0;
        if (x->oom || (x->aborted && !x->limited) || x->best >= target) {
            result = with_case(dfs_answer(x, spent), k);
            free(x);
            break;
        }
        free(x);
    }
    free(blocks);
    if (result || PyErr_Occurred()) return result;
    if (pos < cases_n) {
        PyErr_SetString(PyExc_ValueError, "engine._dp.trials: malformed cases");
        return NULL;
    }
    return Py_BuildValue("(iLLOOii)", 0, spent, 0LL, Py_None, Py_None, 0, -1);
}

static PyObject *dp_other_guesses(PyObject *self, PyObject *args) {
    int on;
    if (!PyArg_ParseTuple(args, "p", &on)) return NULL;
    int before = others_on;
    others_on = on;
    return PyBool_FromLong(before);
}

static PyObject *dp_relaxed(PyObject *self, PyObject *args) {
    int on;
    if (!PyArg_ParseTuple(args, "p", &on)) return NULL;
    int before = relax_on;
    relax_on = on;
    return PyBool_FromLong(before);
}

static PyObject *dp_cache_size(PyObject *self, PyObject *unused) {
    return Py_BuildValue("(nn)", (Py_ssize_t)cache_n, (Py_ssize_t)arena_n);
}

static PyMethodDef methods[] = {
    {"run", dp_run, METH_VARARGS, "Run the solver's dynamic programme (see engine/solver.py)."},
    {"search", dp_search, METH_VARARGS, "The same optimum, depth first with branch and bound."},
    {"trials", dp_trials, METH_VARARGS, "The tie-break trials, until one has a play."},
    {"relaxed", dp_relaxed, METH_VARARGS,
     "Whether the Stein search proper is pruned by a relaxation (returns the old setting)."},
    {"cache_size", dp_cache_size, METH_NOARGS, "(cached cells, cached options)"},
    {"wrap_guesses", dp_wrap_guesses, METH_VARARGS, "Stein: the cut and the crossing runs."},
    {"other_guesses", dp_other_guesses, METH_VARARGS,
     "Whether the search proper prunes by other guesses' bounds (returns the old setting)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "engine._dp",
                                    "The solver's dynamic programme in C (engine/solver.py).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__dp(void) { return PyModule_Create(&module); }
