/*
 * _merge_core.c -- bpe-tui's optional compiled merge core: the encoder's hot loop, in C.
 *
 * WHAT IT COMPUTES. BPE encodes a pre-token by starting from its base symbols and merging,
 * again and again, the adjacent pair of lowest rank, leftmost on ties, until no adjacent pair
 * has a rank. This file does that loop for the encoder's two rules, and nothing else. Each
 * method mirrors a Python function, the reference (as tiktoken's _educational.py is to its core):
 *
 *   Merger.merge_ids(ids)      by merge list: the pair (left id, right id) has the rank of the
 *                              merge that lists it and makes that merge's token.
 *                              Mirrors merge_pairs() in bpe_tui/core/engine/merging.py.
 *   Merger.merge_bytes(piece)  by token rank (tiktoken's rule): two adjacent parts of the
 *                              piece's bytes have the rank of the token their concatenation is;
 *                              returns the parts' ranks (= ids).
 *                              Mirrors merge_bytes() in bpe_tui/core/engine/merging.py.
 *   Merger.work_out(word)      the ids of one pre-token: emitted whole (ignore_merges), or its
 *                              base symbols (bytes, word start, end-of-word marker) merged.
 *                              Mirrors NewPieces.pure() in bpe_tui/core/tables/new_pieces.py.
 *   Merger.encode_words(words, cache, limit, out)
 *                              out += the ids of a text's pre-tokens: each from the pieces
 *                              cache (a dict), or worked out and kept there. Mirrors
 *                              NewPieces.extend()'s Python branch, map(cache.__getitem__, words).
 *
 * Beside the merge loop, the split before it, for the regexes bpe-tui knows (GPT-2's, cl100k's,
 * o200k's, Llama 3's, Qwen's, in bpe_tui/core/text/presets.py):
 *
 *   Splitter.findall(text)     the pre-tokens of a text: regex.findall(PATTERN, text), each
 *   Splitter.spans(text)       pattern's alternatives written out with regex's backtracking
 *                              (see the split section below). Mirrors KnownPattern.findall and
 *                              .finditer in bpe_tui/core/text/splitting.py, whose Python path
 *                              is the regex package itself. What each character is (a letter,
 *                              a digit, a space ...) is a table regex filled, handed over from
 *                              bpe_tui/core/text/char_classes.py.
 *
 * Three more sections, each the twin of one Python function: eval's word tally (tally_words,
 * Tallier.add_each in bpe_tui/core/analysis/evaluate.py); BoundlessBPE's pass over a text's
 * pre-tokens (Supermerges.join_words, Joiner.joined_python in bpe_tui/core/tables/boundless.py,
 * with BoundlessEvents.run's scan for a run of pre-tokens; a run of 64 pre-tokens or more is
 * worked out in Python); and the replay of a table's merges and removals in order
 * (Replayer.replay, Removals.replay_python in bpe_tui/core/tables/removals.py), for PickyBPE's
 * and BoundlessBPE's pre-tokens.
 *
 * The Python code is the reference, the teaching path and the fallback: dropout, traces and
 * offsets never come to the merge loop here, nor does anything that
 * decides what a table means (new_pieces.py hands over the indices Python built). A chars
 * table's base symbols are made in Python (Merger.work_out calls back), merged here.
 * tests/core/test_merge_core.py holds every merge method to its Python twin on random text,
 * on every kind of table; tests/core/test_compiled_split.py holds the split to regex's.
 *
 * HOW. A piece of fewer than HEAP_FROM symbols is merged as merge_pairs/merge_bytes do it: an
 * array of each adjacent pair's rank, the lowest found by a scan, the merge's two neighbours
 * looked up again (tiktoken's byte_pair_encode). A longer piece (a pasted line with no space,
 * a long run of one character) goes to a heap of (rank, position) over a doubly linked list of
 * symbols, as merging._heap does: O(n log n) time, about 30 bytes of memory per symbol. The
 * heap here is indexed (each position holds at most one entry, moved when its pair changes),
 * so it never holds stale entries; it pops the same (rank, position) order as _heap.
 *
 * The indices are open-addressing hash tables built once per table: pair -> (rank, made), and
 * token bytes -> id. Ids are 0 .. 2**32 - 1 (the encoder refuses a table whose ordinary ids do
 * not fit, on both paths: encoder.check_ids); -1 is UNK_ID, an unknown base symbol. One
 * shortcut is not in the Python loop: in encode_words, a pre-token that is itself a token of a
 * table that emits such pre-tokens whole (ignore_merges: every rank file) is looked up in the
 * token index without asking the cache, which would hold the same one id for it.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define HEAP_FROM 64           /* merging.HEAP_FROM: pieces this long or longer use the heap */
#define NO_RANK UINT64_MAX     /* a pair no merge joins (merging._NO_RANK) */
#define EMPTY_PAIR UINT32_MAX  /* an empty slot of the pair table (no merge has this rank) */
#define UNK_ID (-1)            /* types.UNK_ID */
#define NO_ID (-2)             /* "none" for an optional id */
#define CHECK_EVERY 4096       /* pre-tokens (or heap merges) between two looks at Ctrl+C */

/* ------------------------------------------------------------------ hashing */

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static size_t table_size(Py_ssize_t entries)
{
    size_t size = 16;
    while (size < (size_t)entries * 2 + 1)
        size <<= 1;
    return size;
}

/* ------------------------------------------------------------------ pair -> (rank, made) */

typedef struct {
    uint32_t left, right, rank, made;
} PairSlot;

typedef struct {
    PairSlot *slots;
    size_t mask;
} PairTable;

/* rank << 32 | made of the pair, or NO_RANK (merge_pairs' packed value: orders by rank). */
static inline uint64_t pair_value(const PairTable *t, int64_t a, int64_t b)
{
    if (a < 0 || b < 0 || a > UINT32_MAX || b > UINT32_MAX)
        return NO_RANK;  /* an unknown symbol is in no pair */
    size_t i = (size_t)mix64((uint64_t)a << 32 | (uint64_t)b) & t->mask;
    for (;;) {
        const PairSlot *s = &t->slots[i];
        if (s->rank == EMPTY_PAIR)
            return NO_RANK;
        if (s->left == (uint32_t)a && s->right == (uint32_t)b)
            return (uint64_t)s->rank << 32 | s->made;
        i = (i + 1) & t->mask;
    }
}

static int fits_u32(PyObject *number, uint64_t *out, uint64_t most)
{
    unsigned long long v = PyLong_AsUnsignedLongLong(number);
    if (v == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    if (v > most) {
        PyErr_SetString(PyExc_OverflowError, "a merge index value does not fit the compiled core");
        return -1;
    }
    *out = v;
    return 0;
}

/* Build from the merge list's index, the table's (pair_ranks, pair_made): (left, right) -> its
 * rank, and -> the id it makes (MergeTable._merge_index; merging.pair_merges packs the same two). */
static int pairs_build(PairTable *t, PyObject *ranks, PyObject *made)
{
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    size_t size = table_size(PyDict_GET_SIZE(ranks));
    t->slots = PyMem_Malloc(size * sizeof(PairSlot));
    if (t->slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memset(t->slots, 0xff, size * sizeof(PairSlot));
    t->mask = size - 1;
    while (PyDict_Next(ranks, &pos, &key, &value)) {
        uint64_t a, b, rank, new;
        if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) != 2) {
            PyErr_SetString(PyExc_TypeError, "a merge index's keys are (left, right) tuples");
            return -1;
        }
        PyObject *makes = PyDict_GetItemWithError(made, key);
        if (makes == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, key);
            return -1;
        }
        if (fits_u32(PyTuple_GET_ITEM(key, 0), &a, UINT32_MAX) < 0 || fits_u32(PyTuple_GET_ITEM(key, 1), &b, UINT32_MAX) < 0 ||
            fits_u32(value, &rank, EMPTY_PAIR - 1) < 0 || fits_u32(makes, &new, UINT32_MAX) < 0)
            return -1;
        size_t i = (size_t)mix64(a << 32 | b) & t->mask;
        while (t->slots[i].rank != EMPTY_PAIR)
            i = (i + 1) & t->mask;
        t->slots[i] = (PairSlot){(uint32_t)a, (uint32_t)b, (uint32_t)rank, (uint32_t)new};
    }
    return 0;
}

/* ------------------------------------------------------------------ token bytes -> id */

/* Token bytes are read 8 at a time: every buffer a lookup reads from has PAD readable bytes
 * past its end (see Padded below), so the first 8 bytes of a span load in one read. */
#define PAD 8

static inline uint64_t head8(const unsigned char *p, size_t n)
{
    uint64_t v;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&v, p, 8);
    if (n < 8)
        v &= ((uint64_t)1 << (8 * n)) - 1;
#else
    v = 0;
    for (size_t k = 0; k < n && k < 8; k++)
        v |= (uint64_t)p[k] << (8 * k);
#endif
    return v;
}

static inline uint64_t hash_span(const unsigned char *p, size_t n, uint64_t head)
{
    uint64_t h = head + (uint64_t)n * 0x9e3779b97f4a7c15ULL;
    for (size_t k = 8; k < n; k += 8) {
        h = mix64(h);
        h ^= head8(p + k, n - k);
    }
    return mix64(h);
}

typedef struct {
    uint64_t head;   /* the first 8 bytes (fewer: zeros after) */
    uint32_t len;    /* 0: an empty slot (the empty token is kept aside) */
    uint32_t id;
} TokenSlot;

typedef struct {
    TokenSlot *slots;
    uint32_t *offset;    /* offset[slot]: where a token longer than 8 bytes is in arena */
    size_t mask;
    unsigned char *arena;
    uint32_t *two;       /* two[b0 | b1 << 8]: the id of a two-byte token, or UINT32_MAX: look in slots */
    int64_t empty;       /* the id of the empty token (Whisper has one), or NO_ID */
    int64_t single[256]; /* the id of each one-byte token, or NO_ID */
} TokenTable;

/* The slot of the token p[0:n] (n >= 2), or SIZE_MAX. */
static inline size_t token_find(const TokenTable *t, const unsigned char *p, size_t n)
{
    uint64_t head = head8(p, n);
    size_t i = (size_t)hash_span(p, n, head) & t->mask;
    for (;;) {
        const TokenSlot *s = &t->slots[i];
        if (s->len == 0)
            return SIZE_MAX;
        if (s->head == head && s->len == n && (n <= 8 || memcmp(t->arena + t->offset[i] + 8, p + 8, n - 8) == 0))
            return i;
        i = (i + 1) & t->mask;
    }
}

/* The id of the token p[0:n] is, or NO_ID (p has PAD readable bytes past n). */
static inline int64_t token_id(const TokenTable *t, const unsigned char *p, size_t n)
{
    if (n <= 2) {
        if (n < 2)
            return n ? t->single[*p] : t->empty;
        uint32_t id = t->two[p[0] | p[1] << 8];
        if (id != UINT32_MAX)
            return id;
    }
    size_t slot = token_find(t, p, n);
    return slot == SIZE_MAX ? NO_ID : (int64_t)t->slots[slot].id;
}

/* Build from a dict of token bytes -> id (the encoder's surface_to_id of a bytes table). */
static int tokens_build(TokenTable *t, PyObject *tokens)
{
    Py_ssize_t pos = 0, total = 0;
    PyObject *key, *value;
    for (int b = 0; b < 256; b++)
        t->single[b] = NO_ID;
    t->empty = NO_ID;
    while (PyDict_Next(tokens, &pos, &key, &value)) {
        if (!PyBytes_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "a token index's keys are bytes");
            return -1;
        }
        total += PyBytes_GET_SIZE(key);
    }
    if (total >= (Py_ssize_t)UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "the tokens' bytes do not fit the compiled core");
        return -1;
    }
    size_t size = table_size(PyDict_GET_SIZE(tokens));
    t->slots = PyMem_Calloc(size, sizeof(TokenSlot));
    t->offset = PyMem_Calloc(size, sizeof(uint32_t));
    t->arena = PyMem_Malloc((size_t)total + PAD);
    t->two = PyMem_Malloc(65536 * sizeof(uint32_t));
    if (t->slots == NULL || t->offset == NULL || t->arena == NULL || t->two == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memset(t->two, 0xff, 65536 * sizeof(uint32_t));
    t->mask = size - 1;
    uint32_t used = 0;
    pos = 0;
    while (PyDict_Next(tokens, &pos, &key, &value)) {
        uint64_t id;
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(key);
        size_t n = (size_t)PyBytes_GET_SIZE(key);
        if (fits_u32(value, &id, UINT32_MAX) < 0)
            return -1;
        if (n <= 1) {
            if (n)
                t->single[*p] = (int64_t)id;
            else
                t->empty = (int64_t)id;
            continue;
        }
        memcpy(t->arena + used, p, n);
        memset(t->arena + used + n, 0, PAD);  /* (overwritten by the next token, or the pad) */
        const unsigned char *kept = t->arena + used;
        uint64_t head = head8(kept, n);
        size_t i = (size_t)hash_span(kept, n, head) & t->mask;
        while (t->slots[i].len != 0)
            i = (i + 1) & t->mask;
        t->slots[i] = (TokenSlot){head, (uint32_t)n, (uint32_t)id};
        t->offset[i] = used;
        if (n == 2)
            t->two[p[0] | p[1] << 8] = (uint32_t)id;  /* (UINT32_MAX itself: found in slots) */
        used += (uint32_t)n;
    }
    return 0;
}

/* A buffer with PAD zero bytes past what it holds: on the stack when short, else allocated. */
typedef struct {
    unsigned char stack[256];
    unsigned char *heap;
} Padded;

static unsigned char *pad_reserve(Padded *b, size_t n)
{
    b->heap = NULL;
    if (n + PAD <= sizeof(b->stack))
        return b->stack;
    b->heap = PyMem_Malloc(n + PAD);
    if (b->heap == NULL)
        PyErr_NoMemory();
    return b->heap;
}

static const unsigned char *padded(Padded *b, const void *src, size_t n)
{
    unsigned char *out = pad_reserve(b, n);
    if (out != NULL) {
        memcpy(out, src, n);
        memset(out + n, 0, PAD);
    }
    return out;
}

/* A str's UTF-8, padded (str.encode("utf-8"); a lone surrogate raises what str.encode raises). */
static const unsigned char *utf8_of(PyObject *word, Padded *b, Py_ssize_t *size)
{
    Py_ssize_t len = PyUnicode_GET_LENGTH(word);
    const void *data = PyUnicode_DATA(word);
    if (PyUnicode_IS_ASCII(word)) {
        *size = len;
        return padded(b, data, (size_t)len);
    }
    int kind = PyUnicode_KIND(word);
    size_t most = (size_t)len * (kind == PyUnicode_1BYTE_KIND ? 2 : kind == PyUnicode_2BYTE_KIND ? 3 : 4);
    unsigned char *out = pad_reserve(b, most);
    if (out == NULL)
        return NULL;
    size_t k = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 0x80) {
            out[k++] = (unsigned char)c;
        } else if (c < 0x800) {
            out[k++] = (unsigned char)(0xc0 | c >> 6);
            out[k++] = (unsigned char)(0x80 | (c & 0x3f));
        } else if (c < 0x10000) {
            if (c >= 0xd800 && c <= 0xdfff) {  /* let CPython's encoder say what is wrong */
                Py_ssize_t ignored;
                PyMem_Free(b->heap);
                b->heap = NULL;
                if (PyUnicode_AsUTF8AndSize(word, &ignored) != NULL)
                    PyErr_SetString(PyExc_UnicodeError, "a surrogate that UTF-8 took");
                return NULL;
            }
            out[k++] = (unsigned char)(0xe0 | c >> 12);
            out[k++] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
            out[k++] = (unsigned char)(0x80 | (c & 0x3f));
        } else {
            out[k++] = (unsigned char)(0xf0 | c >> 18);
            out[k++] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
            out[k++] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
            out[k++] = (unsigned char)(0x80 | (c & 0x3f));
        }
    }
    memset(out + k, 0, PAD);
    *size = (Py_ssize_t)k;
    return out;
}

/* ------------------------------------------------------------------ the indexed heap */

/* Positions keyed by (key[pos], pos), the smallest on top; each position at most once. */
typedef struct {
    uint32_t *heap;   /* positions */
    uint32_t *where;  /* where[pos]: its index in heap, or UINT32_MAX */
    const uint64_t *key;
    size_t size;
} Heap;

static inline int heap_less(const Heap *h, uint32_t a, uint32_t b)
{
    return h->key[a] < h->key[b] || (h->key[a] == h->key[b] && a < b);
}

static void heap_up(Heap *h, size_t k)
{
    uint32_t pos = h->heap[k];
    while (k > 0) {
        size_t parent = (k - 1) / 2;
        if (!heap_less(h, pos, h->heap[parent]))
            break;
        h->heap[k] = h->heap[parent];
        h->where[h->heap[k]] = (uint32_t)k;
        k = parent;
    }
    h->heap[k] = pos;
    h->where[pos] = (uint32_t)k;
}

static void heap_down(Heap *h, size_t k)
{
    uint32_t pos = h->heap[k];
    for (;;) {
        size_t child = 2 * k + 1;
        if (child >= h->size)
            break;
        if (child + 1 < h->size && heap_less(h, h->heap[child + 1], h->heap[child]))
            child++;
        if (!heap_less(h, h->heap[child], pos))
            break;
        h->heap[k] = h->heap[child];
        h->where[h->heap[k]] = (uint32_t)k;
        k = child;
    }
    h->heap[k] = pos;
    h->where[pos] = (uint32_t)k;
}

static void heap_remove(Heap *h, uint32_t pos)
{
    size_t k = h->where[pos];
    if (k == UINT32_MAX)
        return;
    h->where[pos] = UINT32_MAX;
    h->size--;
    if (k == h->size)
        return;
    uint32_t last = h->heap[h->size];
    h->heap[k] = last;
    h->where[last] = (uint32_t)k;
    heap_up(h, k);
    heap_down(h, h->where[last]);
}

/* The pair at pos now has key[pos] (already written): put it in its place, or out. */
static void heap_set(Heap *h, uint32_t pos)
{
    if (h->key[pos] == NO_RANK) {
        heap_remove(h, pos);
    } else if (h->where[pos] == UINT32_MAX) {
        h->heap[h->size] = pos;
        h->size++;
        heap_up(h, h->size - 1);
    } else {
        size_t k = h->where[pos];
        heap_up(h, k);
        heap_down(h, h->where[pos]);
    }
}

/* ------------------------------------------------------------------ the Merger */

typedef struct {
    PyObject_HEAD
    int by_token_rank;     /* 1: tiktoken's rule (tokens); 0: by merge list (pairs) */
    PairTable pairs;
    TokenTable tokens;     /* by token rank: the ranks; by merge list: whole tokens (ignore_merges) */
    int have_tokens, have_pairs;
    int ignore_merges;     /* a pre-token that is itself a token is emitted whole */
    int base_in_c;         /* by merge list: encode_words makes base ids here (a bytes table) */
    int64_t base[256];     /* by merge list, bytes: each byte's base id, or UNK_ID */
    unsigned char *word_start;
    Py_ssize_t word_start_len;
    int64_t eow;           /* the end-of-word marker's id, or NO_ID */
    int eow_not_after_unknown; /* (outside_vocab_from: no marker after an unknown last symbol) */
    Py_ssize_t long_from;  /* pieces of this many bytes or more are shown to check_long first */
    PyObject *fallback;    /* word -> tuple of ids: Python's work-out, for what C does not do */
    PyObject *check_long;  /* word -> None, or raises (a pre-token over the size limit) */
    uint8_t *self_merges;  /* per token slot: 0 not known yet, 1 its bytes merge into it, 2 not */
} Merger;

/* -- by merge list: ids (n of them, changed in place) -> the merged ids; returns the count */

/* The leftmost place of the lowest of r[0:m], and that rank in *best (NO_RANK: none). */
static inline Py_ssize_t lowest(const uint64_t *r, Py_ssize_t m, uint64_t *best)
{
    Py_ssize_t at = 0;
    *best = NO_RANK;
    for (Py_ssize_t i = 0; i < m; i++)
        if (r[i] < *best) {
            *best = r[i];
            at = i;
        }
    return at;
}

static Py_ssize_t merge_ids_scan(const PairTable *t, int64_t *ids, Py_ssize_t n, uint64_t *r)
{
    if (n < 2)
        return n;
    Py_ssize_t m = n - 1;  /* r[i]: the pair (ids[i], ids[i + 1]) */
    for (Py_ssize_t i = 0; i < m; i++)
        r[i] = pair_value(t, ids[i], ids[i + 1]);
    for (;;) {
        uint64_t best;
        Py_ssize_t at = lowest(r, m, &best);
        if (best == NO_RANK)
            break;
        ids[at] = (int64_t)(best & UINT32_MAX);
        memmove(ids + at + 1, ids + at + 2, (size_t)(n - at - 2) * sizeof(int64_t));
        memmove(r + at, r + at + 1, (size_t)(m - at - 1) * sizeof(uint64_t));
        n--;
        m--;
        if (at > 0)
            r[at - 1] = pair_value(t, ids[at - 1], ids[at]);
        if (at < m)
            r[at] = pair_value(t, ids[at], ids[at + 1]);
        if (m == 0)
            break;
    }
    return n;
}

/* The linked list and heap both rules share for long pieces. */
typedef struct {
    uint32_t *next, *prev;
    uint64_t *key;
    Heap heap;
} Chain;

static int chain_init(Chain *c, Py_ssize_t n)
{
    memset(c, 0, sizeof(Chain));
    if ((uint64_t)n >= UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "a piece of 2**32 symbols or more does not fit the compiled core");
        return -1;
    }
    c->next = PyMem_Malloc((size_t)n * sizeof(uint32_t));
    c->prev = PyMem_Malloc((size_t)(n + 1) * sizeof(uint32_t));  /* (+1: merge_bytes_heap lists the parts' starts in it) */
    c->key = PyMem_Malloc((size_t)n * sizeof(uint64_t));
    c->heap.heap = PyMem_Malloc((size_t)n * sizeof(uint32_t));
    c->heap.where = PyMem_Malloc((size_t)n * sizeof(uint32_t));
    c->heap.key = c->key;
    c->heap.size = 0;
    if (!c->next || !c->prev || !c->key || !c->heap.heap || !c->heap.where) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        c->next[i] = (uint32_t)(i + 1);
        c->prev[i] = (uint32_t)(i - 1);  /* UINT32_MAX for the first */
        c->heap.where[i] = UINT32_MAX;
    }
    return 0;
}

static void chain_free(Chain *c)
{
    PyMem_Free(c->next);
    PyMem_Free(c->prev);
    PyMem_Free(c->key);
    PyMem_Free(c->heap.heap);
    PyMem_Free(c->heap.where);
}

/* Build the heap of the initial pairs (key already filled), in O(n). */
static void chain_heapify(Chain *c, Py_ssize_t n)
{
    Heap *h = &c->heap;
    for (Py_ssize_t i = 0; i < n; i++)
        if (c->key[i] != NO_RANK) {
            h->heap[h->size] = (uint32_t)i;
            h->where[i] = (uint32_t)h->size;
            h->size++;
        }
    for (size_t k = h->size / 2; k-- > 0;)
        heap_down(h, k);
}

/* Take the top of the heap, the pair at i of the lowest (rank, position), and join its two
 * symbols: the one after i leaves the list and the heap. i is left out of the heap, its key as
 * it was (the pair just merged); the caller writes the new keys of i and of the one before it
 * (chain_set). Every million merges it looks at Ctrl+C: -1 then, with the exception set. */
static int64_t chain_pop(Chain *c, uint32_t n, Py_ssize_t *done)
{
    if (++*done % (CHECK_EVERY * 256) == 0 && PyErr_CheckSignals() < 0)
        return -1;
    uint32_t i = c->heap.heap[0];
    uint32_t j = c->next[i];
    heap_remove(&c->heap, i);
    if (c->key[j] != NO_RANK) {
        c->key[j] = NO_RANK;
        heap_remove(&c->heap, j);
    }
    c->next[i] = c->next[j];
    if (c->next[j] < n)
        c->prev[c->next[j]] = i;
    return i;
}

/* The pair at pos now has this key (NO_RANK: none): into its place in the heap, or out. */
static inline void chain_set(Chain *c, uint32_t pos, uint64_t key)
{
    c->key[pos] = key;
    heap_set(&c->heap, pos);
}

static Py_ssize_t merge_ids_heap(const PairTable *t, int64_t *ids, Py_ssize_t n)
{
    Chain c;
    if (chain_init(&c, n) < 0) {
        chain_free(&c);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        c.key[i] = i + 1 < n ? pair_value(t, ids[i], ids[i + 1]) : NO_RANK;
    chain_heapify(&c, n);
    Py_ssize_t count = n, done = 0;
    while (c.heap.size > 0) {
        int64_t popped = chain_pop(&c, (uint32_t)n, &done);
        if (popped < 0) {
            chain_free(&c);
            return -1;
        }
        uint32_t i = (uint32_t)popped;
        ids[i] = (int64_t)(c.key[i] & UINT32_MAX);  /* the token the merge makes */
        count--;
        chain_set(&c, i, c.next[i] < (uint32_t)n ? pair_value(t, ids[i], ids[c.next[i]]) : NO_RANK);
        if (c.prev[i] != UINT32_MAX)
            chain_set(&c, c.prev[i], pair_value(t, ids[c.prev[i]], ids[i]));
    }
    Py_ssize_t k = 0;
    for (uint32_t i = 0; i < (uint32_t)n; i = c.next[i])
        ids[k++] = ids[i];
    chain_free(&c);
    return count;
}

static Py_ssize_t merge_ids_any(const Merger *m, int64_t *ids, Py_ssize_t n)
{
    if (n >= HEAP_FROM)
        return merge_ids_heap(&m->pairs, ids, n);
    uint64_t r[HEAP_FROM];
    return merge_ids_scan(&m->pairs, ids, n, r);
}

/* -- by token rank: a piece's bytes (p, with PAD bytes after) -> its parts' ids (n at most) */

/* The parts' ids are known as they are made: a single byte's token, or the rank of the pair a
 * merge joined (the rank of the token the two make). A single byte with no token of its own
 * raises KeyError, as Python's ranks[part] does for the first such part. */
static Py_ssize_t check_parts(const unsigned char *p, const uint32_t *starts, const int64_t *ids, Py_ssize_t parts)
{
    for (Py_ssize_t k = 0; k < parts; k++)
        if (ids[k] == NO_ID) {
            PyObject *missing = PyBytes_FromStringAndSize((const char *)p + starts[k], starts[k + 1] - starts[k]);
            if (missing) {
                PyErr_SetObject(PyExc_KeyError, missing);
                Py_DECREF(missing);
            }
            return -1;
        }
    return parts;
}

static inline uint64_t span_rank(const TokenTable *t, const unsigned char *p, uint32_t a, uint32_t b)
{
    int64_t id = token_id(t, p + a, b - a);
    return id == NO_ID ? NO_RANK : (uint64_t)id;
}

static Py_ssize_t merge_bytes_scan(const TokenTable *t, const unsigned char *p, Py_ssize_t n, int64_t *ids)
{
    uint32_t starts[HEAP_FROM + 1];  /* part k is p[starts[k]:starts[k + 1]] */
    uint64_t r[HEAP_FROM];           /* r[k]: the rank of parts k and k + 1 joined */
    Py_ssize_t m = n - 1;
    for (Py_ssize_t i = 0; i <= n; i++)
        starts[i] = (uint32_t)i;
    for (Py_ssize_t i = 0; i < n; i++)
        ids[i] = t->single[p[i]];
    for (Py_ssize_t i = 0; i < m; i++)
        r[i] = span_rank(t, p, (uint32_t)i, (uint32_t)i + 2);
    while (m > 0) {
        uint64_t best;
        Py_ssize_t at = lowest(r, m, &best);
        if (best == NO_RANK)
            break;
        ids[at] = (int64_t)best;
        memmove(ids + at + 1, ids + at + 2, (size_t)(m - at - 1) * sizeof(int64_t));
        memmove(starts + at + 1, starts + at + 2, (size_t)(m - at) * sizeof(uint32_t));
        memmove(r + at, r + at + 1, (size_t)(m - at - 1) * sizeof(uint64_t));
        m--;
        if (at > 0)
            r[at - 1] = span_rank(t, p, starts[at - 1], starts[at + 1]);
        if (at < m)
            r[at] = span_rank(t, p, starts[at], starts[at + 2]);
    }
    return check_parts(p, starts, ids, m + 1);
}

static Py_ssize_t merge_bytes_heap(const TokenTable *t, const unsigned char *p, Py_ssize_t n, int64_t *ids)
{
    /* Symbol i covers p[i:next[i]]: a part is known by where it starts; ids[i] is its id. */
    Chain c;
    if (chain_init(&c, n) < 0) {
        chain_free(&c);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        ids[i] = t->single[p[i]];
        c.key[i] = i + 1 < n ? span_rank(t, p, (uint32_t)i, (uint32_t)i + 2) : NO_RANK;
    }
    chain_heapify(&c, n);
    Py_ssize_t done = 0;
    while (c.heap.size > 0) {
        int64_t popped = chain_pop(&c, (uint32_t)n, &done);
        if (popped < 0) {
            chain_free(&c);
            return -1;
        }
        uint32_t i = (uint32_t)popped;
        ids[i] = (int64_t)c.key[i];  /* the rank of the pair = the id of the token it makes */
        chain_set(&c, i, c.next[i] < (uint32_t)n ? span_rank(t, p, i, c.next[c.next[i]]) : NO_RANK);
        if (c.prev[i] != UINT32_MAX)
            chain_set(&c, c.prev[i], span_rank(t, p, c.prev[i], c.next[i]));
    }
    /* the parts in order: their starts into prev (it has n + 1 places), their ids to the front */
    Py_ssize_t parts = 0;
    for (uint32_t i = 0; i < (uint32_t)n; i = c.next[i]) {
        c.prev[parts] = i;
        ids[parts++] = ids[i];
    }
    c.prev[parts] = (uint32_t)n;
    Py_ssize_t got = check_parts(p, c.prev, ids, parts);
    chain_free(&c);
    return got;
}

static Py_ssize_t merge_bytes_any(const Merger *m, const unsigned char *p, Py_ssize_t n, int64_t *ids)
{
    if (n == 0)
        return 0;
    if (n == 1) {
        uint32_t starts[2] = {0, 1};
        ids[0] = m->tokens.single[p[0]];
        return check_parts(p, starts, ids, 1);
    }
    if (n >= HEAP_FROM)
        return merge_bytes_heap(&m->tokens, p, n, ids);
    return merge_bytes_scan(&m->tokens, p, n, ids);
}

/* ------------------------------------------------------------------ Python objects out */

/* The ids as a tuple (what the pieces cache holds) or a list (what merging.py returns). Each
 * int object is made anew, as tiktoken makes them: new objects come from a free list, side by
 * side, and keeping one object per id was slower (the kept ones scattered in memory). */
static PyObject *ids_object(const int64_t *ids, Py_ssize_t n, int list)
{
    PyObject *out = list ? PyList_New(n) : PyTuple_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *id = PyLong_FromLongLong(ids[k]);
        if (id == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        if (list)
            PyList_SET_ITEM(out, k, id);
        else
            PyTuple_SET_ITEM(out, k, id);
    }
    return out;
}

#define ids_tuple(ids, n) ids_object((ids), (n), 0)
#define ids_list(ids, n) ids_object((ids), (n), 1)

/* ------------------------------------------------------------------ one pre-token */

/* A buffer of n ids: on the stack for short pieces, else allocated (*heap to free). */
static int64_t *id_buffer(int64_t *stack, Py_ssize_t n, int64_t **heap)
{
    *heap = NULL;
    if (n <= HEAP_FROM + 1)
        return stack;
    *heap = PyMem_Malloc((size_t)n * sizeof(int64_t));
    if (*heap == NULL)
        PyErr_NoMemory();
    return *heap;
}

static Py_ssize_t merge_ids_any(const Merger *m, int64_t *ids, Py_ssize_t n);
static Py_ssize_t merge_bytes_any(const Merger *m, const unsigned char *p, Py_ssize_t n, int64_t *ids);

/* Whether merging the bytes of the token in slot (q[0:n]) gives that token back: worked out the
 * first time, then kept in self_merges (1 yes, 2 no). */
static int merges_to_itself(Merger *m, size_t slot, const unsigned char *q, Py_ssize_t n)
{
    if (m->self_merges[slot] == 0) {
        int64_t stack[HEAP_FROM + 2], *heap, *ids = id_buffer(stack, n, &heap);
        if (ids == NULL) {
            PyErr_Clear();
            return 0;  /* (out of memory: not taken as one, the cache's way gives the same ids) */
        }
        Py_ssize_t got;
        if (m->by_token_rank) {
            got = merge_bytes_any(m, q, n, ids);
        } else {
            for (Py_ssize_t k = 0; k < n; k++)
                ids[k] = m->base[q[k]];
            got = merge_ids_any(m, ids, n);
        }
        if (got < 0)
            PyErr_Clear();
        m->self_merges[slot] = got == 1 && ids[0] == m->tokens.slots[slot].id ? 1 : 2;
        PyMem_Free(heap);
    }
    return m->self_merges[slot] == 1;
}

/* The id of a pre-token emitted whole (its UTF-8 is p[0:n], padded; the word start in front),
 * or NO_ID. With ignore_merges that is the table's rule (Encoder.whole_token). With shortcut,
 * and without ignore_merges (a table without an end-of-word marker), a pre-token that is a
 * token whose own bytes merge into it: its merge gives that one id, known without merging. */
static int64_t whole_id(Merger *m, const unsigned char *p, Py_ssize_t n, int shortcut)
{
    if (m->eow != NO_ID || !(m->ignore_merges || (shortcut && m->self_merges != NULL)))
        return NO_ID;
    Padded joined;
    joined.heap = NULL;
    const unsigned char *q = p;
    Py_ssize_t total = n;
    if (m->word_start_len > 0 && !m->by_token_rank) {  /* (by token rank: no word start, as in Python) */
        unsigned char *key = pad_reserve(&joined, (size_t)(m->word_start_len + n));
        if (key == NULL) {
            PyErr_Clear();
            return NO_ID;  /* (out of memory: merged instead, the same ids) */
        }
        memcpy(key, m->word_start, (size_t)m->word_start_len);
        memcpy(key + m->word_start_len, p, (size_t)n);
        total = m->word_start_len + n;
        memset(key + total, 0, PAD);
        q = key;
    }
    int64_t id;
    if (total < 2) {
        id = total ? m->tokens.single[q[0]] : m->tokens.empty;
        if (!m->ignore_merges && total == 0)
            id = NO_ID;  /* (merged, nothing gives nothing; a one-byte token is its own merge) */
    } else {
        size_t slot = token_find(&m->tokens, q, (size_t)total);
        id = slot == SIZE_MAX ? NO_ID : (int64_t)m->tokens.slots[slot].id;
        if (id != NO_ID && !m->ignore_merges && !merges_to_itself(m, slot, q, total))
            id = NO_ID;
    }
    PyMem_Free(joined.heap);
    return id;
}

/* The ids of a pre-token whose UTF-8 is p[0:n] (padded): whole, or merged (a tuple). */
static PyObject *work_out_utf8(Merger *m, const unsigned char *p, Py_ssize_t n, int not_whole)
{
    int64_t stack[HEAP_FROM + 2], *heap, *ids;
    PyObject *out = NULL;
    int64_t whole = not_whole ? NO_ID : whole_id(m, p, n, 0);
    if (whole != NO_ID)
        return ids_tuple(&whole, 1);
    if (m->by_token_rank) {  /* (no word start and no end-of-word marker: EncodeOptions.by_token_rank) */
        ids = id_buffer(stack, n, &heap);
        if (ids == NULL)
            return NULL;
        Py_ssize_t got = merge_bytes_any(m, p, n, ids);
        if (got >= 0)
            out = ids_tuple(ids, got);
        PyMem_Free(heap);
        return out;
    }
    /* by merge list, a bytes table: the word start's and the bytes' base ids, the end-of-word marker */
    ids = id_buffer(stack, m->word_start_len + n + 1, &heap);
    if (ids == NULL)
        return NULL;
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < m->word_start_len; i++)
        ids[k++] = m->base[m->word_start[i]];
    for (Py_ssize_t i = 0; i < n; i++)
        ids[k++] = m->base[p[i]];
    if (m->eow != NO_ID && !(m->eow_not_after_unknown && k > 0 && ids[k - 1] == UNK_ID))
        ids[k++] = m->eow;
    Py_ssize_t got = merge_ids_any(m, ids, k);
    if (got >= 0)
        out = ids_tuple(ids, got);
    PyMem_Free(heap);
    return out;
}

/* The ids of a pre-token not in the cache (a tuple), as NewPieces.work_out makes them. */
static PyObject *work_out(Merger *m, PyObject *word)
{
    if (!m->by_token_rank && !m->base_in_c)
        return PyObject_CallOneArg(m->fallback, word);
    Padded b;
    Py_ssize_t n;
    const unsigned char *p = utf8_of(word, &b, &n);
    if (p == NULL)
        return NULL;
    PyObject *out = NULL;
    if (n >= m->long_from) {
        PyObject *checked = PyObject_CallOneArg(m->check_long, word);
        if (checked == NULL) {
            PyMem_Free(b.heap);
            return NULL;
        }
        Py_DECREF(checked);
    }
    out = work_out_utf8(m, p, n, 0);
    PyMem_Free(b.heap);
    return out;
}

/* ------------------------------------------------------------------ methods */

static PyObject *Merger_merge_ids(Merger *self, PyObject *arg)
{
    if (!self->have_pairs) {
        PyErr_SetString(PyExc_TypeError, "merge_ids: this Merger does not merge by merge list");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(arg, "merge_ids takes a list of ids");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int64_t stack[HEAP_FROM + 2], *heap, *ids = id_buffer(stack, n, &heap);
    if (ids == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            PyMem_Free(heap);
            return NULL;
        }
        ids[i] = v;
    }
    Py_DECREF(seq);
    Py_ssize_t got = merge_ids_any(self, ids, n);
    PyObject *out = got >= 0 ? ids_list(ids, got) : NULL;
    PyMem_Free(heap);
    return out;
}

static PyObject *Merger_merge_bytes(Merger *self, PyObject *arg)
{
    if (!self->by_token_rank) {
        PyErr_SetString(PyExc_TypeError, "merge_bytes: this Merger does not merge by token rank");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Padded b;
    const unsigned char *p = padded(&b, view.buf, (size_t)view.len);
    int64_t stack[HEAP_FROM + 2], *heap = NULL, *ids = p ? id_buffer(stack, view.len, &heap) : NULL;
    PyObject *out = NULL;
    if (ids != NULL) {
        Py_ssize_t got = merge_bytes_any(self, p, view.len, ids);
        if (got >= 0)
            out = ids_list(ids, got);
    }
    PyMem_Free(heap);
    PyMem_Free(b.heap);
    PyBuffer_Release(&view);
    return out;
}

static PyObject *Merger_work_out(Merger *self, PyObject *word)
{
    if (!PyUnicode_Check(word)) {
        PyErr_SetString(PyExc_TypeError, "work_out takes a pre-token (str)");
        return NULL;
    }
    return work_out(self, word);
}

static int append_ids(PyObject *out, PyObject *ids)
{
    if (PyTuple_CheckExact(ids)) {
        Py_ssize_t n = PyTuple_GET_SIZE(ids);
        for (Py_ssize_t k = 0; k < n; k++)
            if (PyList_Append(out, PyTuple_GET_ITEM(ids, k)) < 0)
                return -1;
        return 0;
    }
    PyObject *seq = PySequence_Fast(ids, "a pieces cache holds sequences of ids");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t k = 0; k < n; k++)
        if (PyList_Append(out, PySequence_Fast_GET_ITEM(seq, k)) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    Py_DECREF(seq);
    return 0;
}

/* Append one pre-token's ids (encode_words, below): p is its UTF-8 (n bytes, padded) when
 * the token index is to be asked first, else NULL. 0, or -1 with an exception. */
static int encode_word(Merger *self, PyObject *word, const unsigned char *p, Py_ssize_t n, PyObject *cache, Py_ssize_t limit,
                       PyObject *out)
{
    int not_whole = 0;
    if (p != NULL) {
        int64_t id = whole_id(self, p, n, 1);
        if (id != NO_ID) {
            PyObject *object = PyLong_FromLongLong(id);
            int failed = object == NULL || PyList_Append(out, object) < 0;
            Py_XDECREF(object);
            return failed ? -1 : 0;
        }
        not_whole = self->ignore_merges;  /* (whole_id asked the table's rule itself) */
    }
    PyObject *ids = PyDict_GetItemWithError(cache, word);
    if (ids != NULL) {
        Py_INCREF(ids);
    } else if (!PyErr_Occurred()) {
        Py_INCREF(word);
        if (p != NULL)
            ids = work_out_utf8(self, p, n, not_whole);  /* (short: under long_from) */
        else
            ids = PyUnicode_Check(word) ? work_out(self, word) : PyObject_CallOneArg(self->fallback, word);
        if (ids != NULL && PyDict_GET_SIZE(cache) >= limit)
            PyDict_Clear(cache);
        if (ids != NULL && PyDict_SetItem(cache, word, ids) < 0)
            Py_CLEAR(ids);
        Py_DECREF(word);
    }
    if (ids == NULL)
        return -1;
    int failed = append_ids(out, ids);
    Py_DECREF(ids);
    return failed;
}

/* encode_words(words, cache, limit, out): out += the ids of each pre-token, from the cache (a
 * dict; cleared when it holds limit pre-tokens and one more is to be kept, as PieceCache).
 *
 * First, a pre-token that is itself a token is looked up in the token index, when the table
 * emits such a pre-token whole (ignore_merges, no end-of-word marker: what every rank file says)
 * or its bytes merge into it (see whole_id): the cache would hold the same one id for it, so it
 * need not be asked (nor filled). Its UTF-8, made for that lookup, serves the merge too. */
static PyObject *Merger_encode_words(Merger *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyList_Check(args[0]) || !PyDict_Check(args[1]) || !PyLong_Check(args[2]) || !PyList_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "encode_words(words: list, cache: dict, limit: int, out: list)");
        return NULL;
    }
    PyObject *words = args[0], *cache = args[1], *out = args[3];
    Py_ssize_t limit = PyLong_AsSsize_t(args[2]);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    int whole_first = self->have_tokens && self->eow == NO_ID && (self->by_token_rank || self->base_in_c) &&
                      (self->ignore_merges || self->self_merges != NULL);
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(words); k++) {
        if (k % CHECK_EVERY == CHECK_EVERY - 1 && PyErr_CheckSignals() < 0)
            return NULL;
        PyObject *word = PyList_GET_ITEM(words, k);
        Padded b;
        b.heap = NULL;
        const unsigned char *p = NULL;
        Py_ssize_t n = 0;
        if (whole_first && PyUnicode_Check(word) && PyUnicode_GET_LENGTH(word) <= HEAP_FROM) {
            p = utf8_of(word, &b, &n);
            if (p == NULL)
                PyErr_Clear();  /* (a lone surrogate: work_out says what is wrong) */
        }
        int failed = encode_word(self, word, p, n, cache, limit, out);
        PyMem_Free(b.heap);
        if (failed)
            return NULL;
    }
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ the type */

/* Merger(rule, index, *, tokens=None, ignore_merges=False, bases=None, word_start=b"", eow=None,
 *        eow_not_after_unknown=False, long_from=..., fallback, check_long)
 *   rule "pairs": index is the merge list's (pair_ranks, pair_made); "ranks": index is token bytes -> id (it is
 *   also the tokens); "python": no index, every pre-token not in the cache goes to fallback. */
static int Merger_init(Merger *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"rule", "index", "tokens", "ignore_merges", "bases", "word_start", "eow",
                            "eow_not_after_unknown", "long_from", "fallback", "check_long", NULL};
    const char *rule;
    PyObject *index, *tokens = Py_None, *bases = Py_None, *eow = Py_None, *fallback = NULL, *check_long = NULL;
    const char *word_start = "";
    Py_ssize_t word_start_len = 0, long_from = PY_SSIZE_T_MAX;
    int ignore_merges = 0, eow_not_after_unknown = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO|$OpOy#OpnOO", names, &rule, &index, &tokens, &ignore_merges, &bases,
                                     &word_start, &word_start_len, &eow, &eow_not_after_unknown, &long_from, &fallback,
                                     &check_long))
        return -1;
    if (self->fallback != NULL) {
        PyErr_SetString(PyExc_TypeError, "Merger: made once");
        return -1;
    }
    if (fallback == NULL || check_long == NULL || !PyCallable_Check(fallback) || !PyCallable_Check(check_long)) {
        PyErr_SetString(PyExc_TypeError, "Merger: fallback and check_long are callables (word -> ids, word -> None)");
        return -1;
    }
    Py_XSETREF(self->fallback, Py_NewRef(fallback));
    Py_XSETREF(self->check_long, Py_NewRef(check_long));
    self->long_from = long_from;
    self->ignore_merges = ignore_merges;
    self->eow = NO_ID;
    self->eow_not_after_unknown = eow_not_after_unknown;
    if (strcmp(rule, "ranks") == 0) {
        self->by_token_rank = 1;
        tokens = index;
    } else if (strcmp(rule, "pairs") == 0) {
        if (!PyTuple_Check(index) || PyTuple_GET_SIZE(index) != 2 || !PyDict_Check(PyTuple_GET_ITEM(index, 0)) ||
            !PyDict_Check(PyTuple_GET_ITEM(index, 1))) {
            PyErr_SetString(PyExc_TypeError, "Merger: a pairs index is (pair_ranks, pair_made), two dicts");
            return -1;
        }
        if (pairs_build(&self->pairs, PyTuple_GET_ITEM(index, 0), PyTuple_GET_ITEM(index, 1)) < 0)
            return -1;
        self->have_pairs = 1;
    } else if (strcmp(rule, "python") != 0) {
        PyErr_Format(PyExc_ValueError, "Merger: unknown rule %s (pairs, ranks or python)", rule);
        return -1;
    }
    if (tokens != Py_None) {
        if (!PyDict_Check(tokens)) {
            PyErr_SetString(PyExc_TypeError, "Merger: tokens is a dict of token bytes -> id");
            return -1;
        }
        if (tokens_build(&self->tokens, tokens) < 0)
            return -1;
        self->have_tokens = 1;
    }
    if ((self->by_token_rank || ignore_merges) && !self->have_tokens) {
        PyErr_SetString(PyExc_TypeError, "Merger: by token rank, or with ignore_merges, give the tokens");
        return -1;
    }
    if (bases != Py_None) {
        if (!self->have_pairs) {
            PyErr_SetString(PyExc_TypeError, "Merger: bases are for the pairs rule");
            return -1;
        }
        PyObject *seq = PySequence_Fast(bases, "Merger: bases is 256 ids");
        if (seq == NULL)
            return -1;
        if (PySequence_Fast_GET_SIZE(seq) != 256) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "Merger: bases is 256 ids (UNK_ID for a byte with none)");
            return -1;
        }
        for (int b = 0; b < 256; b++) {
            long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, b));
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(seq);
                return -1;
            }
            self->base[b] = v;
        }
        Py_DECREF(seq);
        self->base_in_c = 1;
    }
    if (word_start_len) {
        self->word_start = PyMem_Malloc((size_t)word_start_len);
        if (self->word_start == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(self->word_start, word_start, (size_t)word_start_len);
        self->word_start_len = word_start_len;
    }
    if (eow != Py_None) {
        self->eow = PyLong_AsLongLong(eow);
        if (self->eow == -1 && PyErr_Occurred())
            return -1;
    }
    if (self->have_tokens && !ignore_merges && self->eow == NO_ID && (self->by_token_rank || self->base_in_c)) {
        self->self_merges = PyMem_Calloc(self->tokens.mask + 1, 1);
        if (self->self_merges == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

/* A Merger holds Python callables (fallback: the encoder's own method), so a table's encoder
 * and its Merger refer to each other: the garbage collector must see these references, or no
 * table would ever be freed. */
static int Merger_traverse(Merger *self, visitproc visit, void *arg)
{
    Py_VISIT(self->fallback);
    Py_VISIT(self->check_long);
    return 0;
}

static int Merger_clear(Merger *self)
{
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->check_long);
    return 0;
}

static void Merger_dealloc(Merger *self)
{
    PyObject_GC_UnTrack(self);
    Merger_clear(self);
    PyMem_Free(self->pairs.slots);
    PyMem_Free(self->tokens.slots);
    PyMem_Free(self->tokens.arena);
    PyMem_Free(self->tokens.offset);
    PyMem_Free(self->tokens.two);
    PyMem_Free(self->word_start);
    PyMem_Free(self->self_merges);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Merger_methods[] = {
    {"merge_ids", (PyCFunction)Merger_merge_ids, METH_O, "merge_ids(ids) -> list: merging.merge_pairs, in C."},
    {"merge_bytes", (PyCFunction)Merger_merge_bytes, METH_O, "merge_bytes(piece) -> list: merging.merge_bytes, in C."},
    {"work_out", (PyCFunction)Merger_work_out, METH_O, "work_out(word) -> tuple: the ids of a pre-token not in the cache."},
    {"encode_words", (PyCFunction)(void (*)(void))Merger_encode_words, METH_FASTCALL,
     "encode_words(words, cache, limit, out): out += each pre-token's ids, the cache filled as it goes."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject MergerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_tui.core.engine._merge_core.Merger",
    .tp_doc = "A table's merge loop, in C (see the header of _merge_core.c).",
    .tp_basicsize = sizeof(Merger),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Merger_init,
    .tp_dealloc = (destructor)Merger_dealloc,
    .tp_traverse = (traverseproc)Merger_traverse,
    .tp_clear = (inquiry)Merger_clear,
    .tp_methods = Merger_methods,
};

/* ------------------------------------------------------------------ the split of a known regex */
/*
 * Splitter(pattern, classes, ready).findall(text) is regex.findall(PATTERN, text) for the known
 * regexes below, without a regex engine: each pattern is written out as the alternatives it
 * tries at a place, in its order, each with the backtracking regex would do (worked out in the
 * comments). What a character is (a letter, a digit, a space, o200k's two letter classes, a
 * letter of a contraction under (?i)) is never decided here: `classes` is one uint16 per code
 * point, filled by bpe_tui/core/text/char_classes.py with the `regex` package itself, plane by
 * plane as texts need them (`ready[plane]` is 1 once a plane is filled). The Python twin is
 * regex.findall (KnownPattern.findall in bpe_tui/core/text/splitting.py runs one or the other).
 */

/* A character's class bits (char_classes.py writes the same numbers). */
#define CL_L 0x01      /* \p{L} */
#define CL_N 0x02      /* \p{N} */
#define CL_S 0x04      /* \s */
#define CL_UP 0x08     /* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (o200k) */
#define CL_LOW 0x10    /* [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k) */
#define CI_S 0x0100    /* (?i:s) ... the letters of the contractions under (?i) */
#define CI_T 0x0200
#define CI_R 0x0400
#define CI_E 0x0800
#define CI_V 0x1000
#define CI_M 0x2000
#define CI_L 0x4000
#define CI_D 0x8000

/* The known regexes this splits (char_classes.SPLIT_PATTERNS names their texts). */
enum { SPLIT_GPT2 = 1, SPLIT_CL100K = 2, SPLIT_LLAMA3 = 3, SPLIT_QWEN = 4, SPLIT_O200K = 5 };

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
    const uint16_t *cls;
} Scan;

static inline Py_UCS4 ch(const Scan *s, Py_ssize_t i)
{
    return PyUnicode_READ(s->kind, s->data, i);
}

/* The class bits of the character at i; none past the end. */
static inline unsigned cl(const Scan *s, Py_ssize_t i)
{
    return i < s->n ? s->cls[ch(s, i)] : 0;
}

/* The end of the run of characters with one of `bits`, from i. */
static inline Py_ssize_t run_of(const Scan *s, Py_ssize_t i, unsigned bits)
{
    while (i < s->n && (s->cls[ch(s, i)] & bits))
        i++;
    return i;
}

/* [^\s\p{L}\p{N}]: neither a space, a letter nor a digit. */
static inline int is_other(const Scan *s, Py_ssize_t i)
{
    return i < s->n && !(s->cls[ch(s, i)] & (CL_S | CL_L | CL_N));
}

static inline Py_ssize_t run_of_other(const Scan *s, Py_ssize_t i)
{
    while (is_other(s, i))
        i++;
    return i;
}

/* [^\r\n\p{L}\p{N}]: the one character allowed before a word. */
static inline int is_lead(const Scan *s, Py_ssize_t i)
{
    if (i >= s->n)
        return 0;
    Py_UCS4 c = ch(s, i);
    return c != '\r' && c != '\n' && !(s->cls[c] & (CL_L | CL_N));
}

static inline int is_crlf(const Scan *s, Py_ssize_t i)
{
    return i < s->n && (ch(s, i) == '\r' || ch(s, i) == '\n');
}

static inline int is_char(const Scan *s, Py_ssize_t i, Py_UCS4 c)
{
    return i < s->n && ch(s, i) == c;
}

static inline int has(const Scan *s, Py_ssize_t i, unsigned bit)
{
    return (cl(s, i) & bit) != 0;
}

/* 's|'t|'re|'ve|'m|'ll|'d at i: its end, or -1. No alternative is a prefix of another, so
 * the order they are tried in does not matter. Case-sensitive (GPT-2's), or under (?i) (the
 * others': cl100k's '(?i:[sdmt]|ll|ve|re) matches the same texts), where the letters are the
 * characters regex says match each one case-insensitively. */
static Py_ssize_t contraction(const Scan *s, Py_ssize_t i, int ignore_case)
{
    if (!is_char(s, i, '\''))
        return -1;
    if (!ignore_case) {
        if (is_char(s, i + 1, 's') || is_char(s, i + 1, 't') || is_char(s, i + 1, 'm') || is_char(s, i + 1, 'd'))
            return i + 2;
        if ((is_char(s, i + 1, 'r') && is_char(s, i + 2, 'e')) || (is_char(s, i + 1, 'v') && is_char(s, i + 2, 'e')) ||
            (is_char(s, i + 1, 'l') && is_char(s, i + 2, 'l')))
            return i + 3;
        return -1;
    }
    unsigned a = cl(s, i + 1);
    if (a & (CI_S | CI_T | CI_M | CI_D))
        return i + 2;
    if (((a & (CI_R | CI_V)) && has(s, i + 2, CI_E)) || ((a & CI_L) && has(s, i + 2, CI_L)))
        return i + 3;
    return -1;
}

/* The whitespace alternatives at i, where a space is (the earlier ones did not match):
 *   \s*[\r\n]+ (cl100k: \s*[\r\n], the same ends): \s* takes the whole run of spaces and gives
 *       characters back one at a time until a line break follows it, so the match ends just
 *       after the run's last \r or \n; there is none: no match.  (`line_breaks` 0: GPT-2 has none)
 *   \s+(?!\S): the whole run where the text ends there; else the run less its last space, so
 *       that what follows it is a space, when that leaves one; else no match.
 *   \s+: the whole run. */
static Py_ssize_t spaces(const Scan *s, Py_ssize_t i, int line_breaks)
{
    Py_ssize_t j = run_of(s, i, CL_S);
    if (j == i)
        return -1;
    if (line_breaks) {
        for (Py_ssize_t k = j - 1; k >= i; k--)
            if (ch(s, k) == '\r' || ch(s, k) == '\n')
                return k + 1;
    }
    return (j < s->n && j - i >= 2) ? j - 1 : j;
}

/* GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * ` ?X+`: the space is taken where an X follows it, else X+ must start at i (a space is no
 * letter, digit or other, so it is never both). */
static Py_ssize_t match_gpt2(const Scan *s, Py_ssize_t i)
{
    Py_ssize_t e = contraction(s, i, 0);
    if (e >= 0)
        return e;
    int space = is_char(s, i, ' ');
    unsigned here = cl(s, i), next = space ? cl(s, i + 1) : 0;
    if (next & CL_L)
        return run_of(s, i + 1, CL_L);
    if (here & CL_L)
        return run_of(s, i, CL_L);
    if (next & CL_N)
        return run_of(s, i + 1, CL_N);
    if (here & CL_N)
        return run_of(s, i, CL_N);
    if (space && is_other(s, i + 1))
        return run_of_other(s, i + 1);
    if (is_other(s, i))
        return run_of_other(s, i);
    return spaces(s, i, 0);
}

/* \p{N}{1,3} (Qwen: \p{N}) at i: its end, or -1. */
static inline Py_ssize_t digits(const Scan *s, Py_ssize_t i, Py_ssize_t most)
{
    Py_ssize_t j = i;
    while (j - i < most && has(s, j, CL_N))
        j++;
    return j > i ? j : -1;
}

/* ` ?[^\s\p{L}\p{N}]+` followed by a run of `tail` characters (line breaks; o200k's also '/'),
 * or -1. The possessive ++ of cl100k changes nothing: the tail holds no "other" character. */
static Py_ssize_t others(const Scan *s, Py_ssize_t i, int slash)
{
    Py_ssize_t j;
    if (is_char(s, i, ' ') && is_other(s, i + 1))
        j = run_of_other(s, i + 1);
    else if (is_other(s, i))
        j = run_of_other(s, i);
    else
        return -1;
    while (is_crlf(s, j) || (slash && is_char(s, j, '/')))
        j++;
    return j;
}

/* cl100k:  '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*
 *          |\s*[\r\n]|\s+(?!\S)|\s+
 * Llama 3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*
 *          |\s*[\r\n]+|\s+(?!\S)|\s+          (Qwen's: \p{N} for \p{N}{1,3})
 * The same ends, alternative by alternative: `[^\r\n\p{L}\p{N}]?\p{L}+` takes the leading
 * character where a letter follows it; given back (or never taken, ?+), \p{L}+ must start at i,
 * and the leading character is no letter. */
static Py_ssize_t match_cl100k(const Scan *s, Py_ssize_t i, Py_ssize_t most_digits)
{
    Py_ssize_t e = contraction(s, i, 1);
    if (e >= 0)
        return e;
    if (is_lead(s, i) && has(s, i + 1, CL_L))
        return run_of(s, i + 1, CL_L);
    if (has(s, i, CL_L))
        return run_of(s, i, CL_L);
    if ((e = digits(s, i, most_digits)) >= 0)
        return e;
    if ((e = others(s, i, 0)) >= 0)
        return e;
    return spaces(s, i, 1);
}

/* o200k's word at p, without its leading character: [UP]*[LOW]+ (`upper_first` 0) or
 * [UP]+[LOW]* (1), where UP = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], LOW = [\p{Ll}\p{Lm}\p{Lo}\p{M}].
 * The classes overlap (Lm, Lo, M are in both), so [UP]* may have to give characters back:
 *   [UP]*[LOW]+: [UP]* takes the run of UP from p, to q. Where the character at q is LOW,
 *       [LOW]+ takes the run of LOW from there. Else [UP]* gives back one character at a time
 *       until [LOW]+ can start: at the last character of the run that is also LOW, and [LOW]+
 *       ends just after it (the next one is UP but not LOW, or is q). None: no match.
 *   [UP]+[LOW]*: the run of UP, then the run of LOW (never needs to give back). */
static Py_ssize_t o200k_word(const Scan *s, Py_ssize_t p, int upper_first)
{
    Py_ssize_t q = p, last_low = -1;
    while (q < s->n) {
        unsigned c = s->cls[ch(s, q)];
        if (!(c & CL_UP))
            break;
        if (c & CL_LOW)
            last_low = q;
        q++;
    }
    if (upper_first)
        return q > p ? run_of(s, q, CL_LOW) : -1;
    if (has(s, q, CL_LOW))
        return run_of(s, q, CL_LOW);
    return last_low >= 0 ? last_low + 1 : -1;
}

/* o200k: [^\r\n\p{L}\p{N}]?[UP]*[LOW]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
 *       |[^\r\n\p{L}\p{N}]?[UP]+[LOW]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
 *       |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
 * Each word alternative is tried with the leading character taken (where there is one), then
 * without it (a mark is both a leading character and UP and LOW). Its contraction is optional
 * and ends the alternative: taken where it is there, never given back for anything. */
static Py_ssize_t match_o200k(const Scan *s, Py_ssize_t i)
{
    int lead = is_lead(s, i);
    Py_ssize_t e = -1;
    for (int upper_first = 0; upper_first <= 1 && e < 0; upper_first++) {
        if (lead)
            e = o200k_word(s, i + 1, upper_first);
        if (e < 0)
            e = o200k_word(s, i, upper_first);
    }
    if (e >= 0) {
        Py_ssize_t c = contraction(s, e, 1);
        return c >= 0 ? c : e;
    }
    if ((e = digits(s, i, 3)) >= 0)
        return e;
    if ((e = others(s, i, 1)) >= 0)
        return e;
    return spaces(s, i, 1);
}

static inline Py_ssize_t match_at(const Scan *s, int pattern, Py_ssize_t i)
{
    switch (pattern) {
    case SPLIT_GPT2:
        return match_gpt2(s, i);
    case SPLIT_CL100K:
    case SPLIT_LLAMA3:
        return match_cl100k(s, i, 3);
    case SPLIT_QWEN:
        return match_cl100k(s, i, 1);
    default:
        return match_o200k(s, i);
    }
}

#define RECENT 4096        /* pieces findall remembers, to hand out the same str again */
#define RECENT_LONGEST 24  /* characters of the longest piece it remembers */

typedef struct {
    PyObject_HEAD
    int pattern;
    Py_buffer classes;     /* uint16 per code point (held: the array cannot be resized) */
    Py_buffer ready;       /* one byte per plane: 1 once its classes are filled */
    PyObject *recent[RECENT]; /* str pieces made lately, by a hash of their characters */
} Splitter;

static int Splitter_init(Splitter *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"pattern", "classes", "ready", NULL};
    PyObject *classes, *ready;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iOO", names, &self->pattern, &classes, &ready))
        return -1;
    if (self->classes.obj != NULL || self->ready.obj != NULL) {
        PyErr_SetString(PyExc_TypeError, "a Splitter is made once");
        return -1;
    }
    if (self->pattern < SPLIT_GPT2 || self->pattern > SPLIT_O200K) {
        PyErr_SetString(PyExc_ValueError, "no such known pattern");
        return -1;
    }
    if (PyObject_GetBuffer(classes, &self->classes, PyBUF_SIMPLE) < 0)
        return -1;
    if (PyObject_GetBuffer(ready, &self->ready, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&self->classes);
        self->classes.obj = NULL;
        return -1;
    }
    if (self->classes.len != 0x110000 * 2 || self->ready.len != 17) {
        PyErr_SetString(PyExc_ValueError, "classes: 0x110000 uint16; ready: 17 bytes");
        return -1;
    }
    return 0;
}

static void Splitter_dealloc(Splitter *self)
{
    for (size_t k = 0; k < RECENT; k++)
        Py_XDECREF(self->recent[k]);
    if (self->classes.obj != NULL)
        PyBuffer_Release(&self->classes);
    if (self->ready.obj != NULL)
        PyBuffer_Release(&self->ready);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Read `text` for splitting: 0; -1 and an error; or 1 + the number of a plane whose classes
 * are not filled yet (Python fills it and asks again). */
static int scan_of(Splitter *self, PyObject *text, Scan *s)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "split: a str");
        return -1;
    }
    if (PyUnicode_READY(text) < 0)
        return -1;
    const unsigned char *ready = self->ready.buf;
    s->kind = PyUnicode_KIND(text);
    s->data = PyUnicode_DATA(text);
    s->n = PyUnicode_GET_LENGTH(text);
    s->cls = self->classes.buf;
    if (!ready[0])
        return 1;
    if (s->kind == PyUnicode_4BYTE_KIND) {
        const Py_UCS4 *c = s->data;
        for (Py_ssize_t i = 0; i < s->n; i++)
            if (c[i] > 0xFFFF && !ready[c[i] >> 16])
                return 1 + (int)(c[i] >> 16);
    }
    return 0;
}

/* The str of text[i:e]. Text repeats its words, so a short piece is looked for among the
 * pieces made lately, and the same str is handed out again: no new object, and its hash (the
 * pieces cache is a dict keyed by str) and UTF-8 form are already worked out. */
static PyObject *piece_of(Splitter *self, PyObject *text, const Scan *s, Py_ssize_t i, Py_ssize_t e)
{
    Py_ssize_t n = e - i;
    if (n > RECENT_LONGEST)
        return PyUnicode_Substring(text, i, e);
    uint64_t h = (uint64_t)n;
    for (Py_ssize_t k = i; k < e; k++)
        h = (h ^ ch(s, k)) * 0x100000001b3ULL;
    PyObject **slot = &self->recent[(h ^ (h >> 32)) & (RECENT - 1)];
    PyObject *old = *slot;
    if (old != NULL && PyUnicode_GET_LENGTH(old) == n) {
        int okind = PyUnicode_KIND(old);
        const void *odata = PyUnicode_DATA(old);
        Py_ssize_t k = 0;
        while (k < n && PyUnicode_READ(okind, odata, k) == ch(s, i + k))
            k++;
        if (k == n) {
            Py_INCREF(old);
            return old;
        }
    }
    PyObject *piece = PyUnicode_Substring(text, i, e);
    if (piece == NULL)
        return NULL;
    Py_INCREF(piece);
    Py_XSETREF(*slot, piece);
    return piece;
}

/* The pieces of `text` as str (findall) or as (start, end) (spans), or the number of a plane
 * whose classes are to be filled first. */
static PyObject *split(Splitter *self, PyObject *text, int as_spans)
{
    Scan s;
    int missing = scan_of(self, text, &s);
    if (missing != 0)
        return missing < 0 ? NULL : PyLong_FromLong(missing - 1);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    Py_ssize_t i = 0, found = 0;
    while (i < s.n) {
        Py_ssize_t e = match_at(&s, self->pattern, i);
        if (e < 0) {  /* (no known pattern leaves a character unmatched; regex would skip it) */
            i++;
            continue;
        }
        PyObject *piece = as_spans ? Py_BuildValue("(nn)", i, e) : piece_of(self, text, &s, i, e);
        if (piece == NULL || PyList_Append(out, piece) < 0) {
            Py_XDECREF(piece);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(piece);
        i = e;
        if (++found % (CHECK_EVERY * 16) == 0 && PyErr_CheckSignals() < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

static PyObject *Splitter_findall(Splitter *self, PyObject *text)
{
    return split(self, text, 0);
}

static PyObject *Splitter_spans(Splitter *self, PyObject *text)
{
    return split(self, text, 1);
}

static PyMethodDef Splitter_methods[] = {
    {"findall", (PyCFunction)Splitter_findall, METH_O, "findall(text) -> list of str (or a plane to fill first)."},
    {"spans", (PyCFunction)Splitter_spans, METH_O, "spans(text) -> list of (start, end) (or a plane to fill first)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SplitterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_tui.core.engine._merge_core.Splitter",
    .tp_doc = "A known regex's split, in C (see the split section of _merge_core.c).",
    .tp_basicsize = sizeof(Splitter),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Splitter_init,
    .tp_dealloc = (destructor)Splitter_dealloc,
    .tp_methods = Splitter_methods,
};
static int add_tally_functions(PyObject *module);  /* the word tally's section, near the end of the file */
static int add_join_functions(PyObject *module);   /* BoundlessBPE's supermerges, near the end of the file */
static int add_replay_functions(PyObject *module); /* the replay of merges and removals, at the end of the file */

static struct PyModuleDef merge_core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_merge_core",
    .m_doc = "bpe-tui's compiled merge core: the encoder's hot loop in C (bpe_tui/core/engine/_merge_core.c).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__merge_core(void)
{
    if (PyType_Ready(&MergerType) < 0 || PyType_Ready(&SplitterType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&merge_core_module);
    if (module == NULL)
        return NULL;
    if (PyModule_AddObjectRef(module, "Merger", (PyObject *)&MergerType) < 0 ||
        PyModule_AddObjectRef(module, "Splitter", (PyObject *)&SplitterType) < 0 ||
        PyModule_AddIntConstant(module, "HEAP_FROM", HEAP_FROM) < 0 || add_tally_functions(module) < 0 ||
        add_join_functions(module) < 0 || add_replay_functions(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}


/* ================================================================== the word tally (eval)
 *
 * tally_words(text, ids, lengths, bytes_mode, counts, types, split_types)
 *     -> (words, continued, aligned), or None
 *
 * Mirrors Tallier.add_each() in bpe_tui/core/analysis/evaluate.py, after the encoding: the
 * counts of the ids, the whitespace words of the text (runs of characters other than space,
 * tab, line feed, carriage return, vertical tab and form feed), and which words a token ends
 * inside. ``lengths`` (a buffer of int64, one per id; the last for UNK_ID) holds each token's
 * non-whitespace length in units (bytes for a byte-level table, characters otherwise). Token
 * ends and words are laid along the non-whitespace units; a word is split when a token ends
 * at one of its units before its last. When the tokens' units and the words' differ in total,
 * the words are not lined up with the tokens: every word goes into ``types`` and aligned is
 * False (a text without words is aligned). ``counts`` (a dict: id -> count) gets each id's count, new ids in order of first
 * occurrence (as Counter.update(ids)); ``types`` gets every word, ``split_types`` the split
 * ones. None (nothing changed): an unknown id in a chars table (the Python path pairs it with
 * the text's characters) or an id outside ``lengths``.
 */

static inline int is_word_space(Py_UCS4 c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == 0x0c;
}

static inline Py_ssize_t units_of(Py_UCS4 c, int bytes_mode)
{
    if (!bytes_mode || c < 0x80)
        return 1;
    return c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/* counts[id] += how often, for the ids in ``order`` (first occurrence first). */
static int add_counts(PyObject *counts, const int64_t *order, Py_ssize_t distinct, const int64_t *seen, Py_ssize_t slots)
{
    for (Py_ssize_t k = 0; k < distinct; k++) {
        int64_t id = order[k];
        int64_t n = seen[id < 0 ? slots - 1 : id];
        PyObject *key = PyLong_FromLongLong(id);
        if (key == NULL)
            return -1;
        PyObject *old = PyDict_GetItemWithError(counts, key);
        PyObject *value = NULL;
        if (old != NULL) {
            PyObject *more = PyLong_FromLongLong(n);
            value = more == NULL ? NULL : PyNumber_Add(old, more);
            Py_XDECREF(more);
        } else if (!PyErr_Occurred()) {
            value = PyLong_FromLongLong(n);
        }
        int failed = value == NULL || PyDict_SetItem(counts, key, value) < 0;
        Py_DECREF(key);
        Py_XDECREF(value);
        if (failed)
            return -1;
    }
    return 0;
}

static PyObject *tally_words(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 7 || !PyUnicode_Check(args[0]) || !PyList_Check(args[1]) || !PyDict_Check(args[4]) ||
        !PySet_Check(args[5]) || !PySet_Check(args[6])) {
        PyErr_SetString(PyExc_TypeError,
                        "tally_words(text: str, ids: list, lengths: buffer of int64, bytes_mode: bool, counts: dict, types: set, split_types: set)");
        return NULL;
    }
    PyObject *text = args[0], *ids = args[1], *counts = args[4], *types = args[5], *split_types = args[6];
    int bytes_mode = PyObject_IsTrue(args[3]);
    if (bytes_mode < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[2], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const int64_t *lengths = (const int64_t *)view.buf;
    Py_ssize_t slots = view.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t n_ids = PyList_GET_SIZE(ids);
    PyObject *result = NULL;
    int64_t *seen = PyMem_Calloc(slots > 0 ? (size_t)slots : 1, sizeof(int64_t));
    int64_t *order = PyMem_Malloc((n_ids > 0 ? (size_t)n_ids : 1) * sizeof(int64_t));
    if (seen == NULL || order == NULL) {
        PyErr_NoMemory();
        goto done;
    }

    /* The ids: their counts (in C first), and their units in total. */
    Py_ssize_t distinct = 0, token_units = 0;
    for (Py_ssize_t k = 0; k < n_ids; k++) {
        int64_t id = PyLong_AsLongLong(PyList_GET_ITEM(ids, k));
        if (id == -1 && PyErr_Occurred())
            goto done;
        if (id == UNK_ID ? !bytes_mode : (id < 0 || id >= slots - 1)) {
            result = Py_NewRef(Py_None);  /* the Python path decides */
            goto done;
        }
        Py_ssize_t slot = id < 0 ? slots - 1 : (Py_ssize_t)id;
        if (seen[slot]++ == 0)
            order[distinct++] = id;
        token_units += lengths[slot];
    }
    if (add_counts(counts, order, distinct, seen, slots) < 0)
        goto done;

    /* The words: how many, and their units in total. */
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), words = 0, word_units = 0;
    int in_word = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (is_word_space(c)) {
            in_word = 0;
        } else {
            words += !in_word;
            in_word = 1;
            word_units += units_of(c, bytes_mode);
        }
    }
    int aligned = words == 0 || token_units == word_units;  /* (no word: nothing to line up) */

    /* Each word into types; with aligned units, a word a token ends inside into split_types. */
    Py_ssize_t continued = 0, k = 0, token_end = -1, at = 0;  /* token_end: the unit a token ends at */
    Py_ssize_t i = 0;
    while (i < n) {
        if (is_word_space(PyUnicode_READ(kind, data, i))) {
            i++;
            continue;
        }
        Py_ssize_t start = i, units = 0;
        while (i < n && !is_word_space(PyUnicode_READ(kind, data, i)))
            units += units_of(PyUnicode_READ(kind, data, i++), bytes_mode);
        int split = 0;
        if (aligned) {  /* the first token end at or after the word's first unit: before its last? */
            while (token_end < at && k < n_ids) {
                int64_t id = PyLong_AsLongLong(PyList_GET_ITEM(ids, k++));
                int64_t length = lengths[id < 0 ? slots - 1 : id];
                if (length > 0)
                    token_end = (token_end < 0 ? 0 : token_end + 1) + length - 1;
            }
            split = token_end >= at && token_end < at + units - 1;
            at += units;
        }
        PyObject *word = PyUnicode_Substring(text, start, i);
        if (word == NULL || PySet_Add(types, word) < 0 || (split && PySet_Add(split_types, word) < 0)) {
            Py_XDECREF(word);
            goto done;
        }
        Py_DECREF(word);
        continued += split;
    }
    result = Py_BuildValue("nnO", words, aligned ? continued : 0, aligned ? Py_True : Py_False);

done:
    PyMem_Free(seen);
    PyMem_Free(order);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef tally_functions[] = {
    {"tally_words", (PyCFunction)(void (*)(void))tally_words, METH_FASTCALL,
     "tally_words(text, ids, lengths, bytes_mode, counts, types, split_types) -> (words, continued, aligned) or None: "
     "Tallier.add_each's counts and word metrics, in C."},
    {NULL, NULL, 0, NULL},
};

static int add_tally_functions(PyObject *module)
{
    return PyModule_AddFunctions(module, tally_functions);
}


/* ================================================================== an index of int64 runs
 *
 * Spans: a 64-bit key (an id, a position, or a (left, right) pair of ids packed) -> a run of
 * int64 values, in one open-addressing table built once from a dict (or a set: keys only).
 * BoundlessBPE's supermerges and crossing pairs, and the replay's four indices, are Spans.
 */

/* The two ints of a (left, right) tuple, each 0 .. 2**32 - 1. */
static int pair_key(PyObject *key, uint64_t *a, uint64_t *b)
{
    if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) != 2) {
        PyErr_SetString(PyExc_TypeError, "a pair of ids is a (left, right) tuple");
        return -1;
    }
    return fits_u32(PyTuple_GET_ITEM(key, 0), a, UINT32_MAX) < 0 || fits_u32(PyTuple_GET_ITEM(key, 1), b, UINT32_MAX) < 0 ? -1 : 0;
}

typedef struct {
    uint64_t *keys;       /* UINT64_MAX: an empty slot */
    Py_ssize_t *start;    /* where the key's values begin in values */
    Py_ssize_t *count;
    size_t mask;
    int64_t *values;
} Spans;

static void spans_free(Spans *t)
{
    PyMem_Free(t->keys);
    PyMem_Free(t->start);
    PyMem_Free(t->count);
    PyMem_Free(t->values);
    memset(t, 0, sizeof(*t));
}

/* The values of ``key`` (and their count in *n), or NULL. */
static inline const int64_t *spans_get(const Spans *t, uint64_t key, Py_ssize_t *n)
{
    size_t i = (size_t)mix64(key) & t->mask;
    for (;;) {
        if (t->keys[i] == UINT64_MAX)
            return NULL;
        if (t->keys[i] == key) {
            *n = t->count[i];
            return t->values + t->start[i];
        }
        i = (i + 1) & t->mask;
    }
}

/* A dict's key as 64 bits: a (left, right) pair of ids packed, or one id (>= 0). */
static int span_key(PyObject *key, int pair, uint64_t *out)
{
    if (pair) {
        uint64_t a, b;
        if (pair_key(key, &a, &b) < 0)
            return -1;
        *out = a << 32 | b;
        return 0;
    }
    long long v = PyLong_AsLongLong(key);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0) {
        PyErr_SetString(PyExc_ValueError, "an event index's keys are ids or positions (>= 0)");
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

/* Room for ``entries`` keys and ``total`` values, every slot empty. */
static int spans_alloc(Spans *t, Py_ssize_t entries, Py_ssize_t total)
{
    size_t size = table_size(entries);
    t->keys = PyMem_Malloc(size * sizeof(uint64_t));
    t->start = PyMem_Malloc(size * sizeof(Py_ssize_t));
    t->count = PyMem_Malloc(size * sizeof(Py_ssize_t));
    t->values = PyMem_Malloc((size_t)(total > 0 ? total : 1) * sizeof(int64_t));
    t->mask = size - 1;
    if (t->keys == NULL || t->start == NULL || t->count == NULL || t->values == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memset(t->keys, 0xff, size * sizeof(uint64_t));
    return 0;
}

/* Key k holds values[start:start + n] (a key put twice keeps its first slot's values). */
static void spans_put(Spans *t, uint64_t k, Py_ssize_t start, Py_ssize_t n)
{
    size_t i = (size_t)mix64(k) & t->mask;
    while (t->keys[i] != UINT64_MAX && t->keys[i] != k)
        i = (i + 1) & t->mask;
    if (t->keys[i] == k)
        return;
    t->keys[i] = k;
    t->start[i] = start;
    t->count[i] = n;
}

/* Build from a set: its keys, each with no value (spans_get says whether a key is in it). */
static int spans_build_set(Spans *t, PyObject *set, int pair)
{
    if (spans_alloc(t, PySet_GET_SIZE(set), 0) < 0)
        return -1;
    PyObject *each = PyObject_GetIter(set), *key;
    if (each == NULL)
        return -1;
    while ((key = PyIter_Next(each)) != NULL) {
        uint64_t k;
        int failed = span_key(key, pair, &k);
        Py_DECREF(key);
        if (failed < 0) {
            Py_DECREF(each);
            return -1;
        }
        spans_put(t, k, 0, 0);
    }
    Py_DECREF(each);
    return PyErr_Occurred() ? -1 : 0;
}

/* Build from a dict: key -> an int, or a sequence of ints (pair: the keys are (left, right)),
 * or from a set: its keys, each with no value. */
static int spans_build(Spans *t, PyObject *dict, int pair)
{
    if (PyAnySet_Check(dict))
        return spans_build_set(t, dict, pair);
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "an index is built from a dict or a set");
        return -1;
    }
    Py_ssize_t entries = PyDict_GET_SIZE(dict), total = 0, at = 0;
    PyObject *key, *value;
    while (PyDict_Next(dict, &at, &key, &value))
        total += PyLong_Check(value) ? 1 : (PySequence_Check(value) ? PySequence_Size(value) : 0);
    if (PyErr_Occurred())
        return -1;
    if (spans_alloc(t, entries, total) < 0)
        return -1;
    Py_ssize_t filled = 0;
    at = 0;
    while (PyDict_Next(dict, &at, &key, &value)) {
        uint64_t k;
        if (span_key(key, pair, &k) < 0)
            return -1;
        int one = PyLong_Check(value);  /* (an int: one value, read as it is) */
        PyObject *seq = one ? Py_NewRef(value) : PySequence_Fast(value, "an event index's values are ints");
        if (seq == NULL)
            return -1;
        PyObject **items = one ? &seq : PySequence_Fast_ITEMS(seq);
        Py_ssize_t n = one ? 1 : PySequence_Fast_GET_SIZE(seq);
        if (filled + n > total) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_RuntimeError, "an event index changed while it was read");
            return -1;
        }
        for (Py_ssize_t j = 0; j < n; j++) {
            t->values[filled + j] = PyLong_AsLongLong(items[j]);
            if (t->values[filled + j] == -1 && PyErr_Occurred()) {
                Py_DECREF(seq);
                return -1;
            }
        }
        Py_DECREF(seq);
        spans_put(t, k, filled, n);
        filled += n;
    }
    return 0;
}

/* ================================================================== BoundlessBPE's supermerges
 *
 * Supermerges(super_pairs, crossing, long_from, words=None, tainted=None, joining=None, made_at=None)
 *   super_pairs  (left, right) -> (position, the token it makes) of each supermerge (a dict:
 *                BoundlessEvents.super_pairs in bpe_tui/core/tables/boundless.py)
 *   crossing     the (left token, right token) pairs a supermerge may cross between (a set)
 *   long_from    runs of this many pre-tokens or more go to Python (boundless.LONG_RUN)
 *   words        a Merger of the table's word merges, bytes in (NewPieces.word_merger), or
 *                None; with it, the BoundlessEvents' tainted, joining (sets) and made_at (a
 *                dict), for BoundlessEvents.word's fast path (below)
 *
 * .run(joins) -> [(first, merged or None), ...]
 *     Mirrors BoundlessEvents.run() for a run shorter than long_from: the scan. ``joins`` holds
 *     each pre-token's Join, (token, since, until). Repeatedly the adjacent pair whose
 *     supermerge comes first (leftmost on ties), both items whole at that moment
 *     (since < position < until), joins; its token is whole from then on.
 *
 * .join_words(words, pieces, tokens, joins, runs, limit, long_run) -> list of ids
 *     Mirrors Joiner.joined_python(): the ids of a text's pre-tokens, supermerges applied.
 *     pieces, tokens, joins: pre-token -> its ids (a tuple) / its Join's token (-1: it never
 *     joins) / its Join: dicts whose __missing__ works a pre-token out (Python). Where two
 *     adjacent pre-tokens' tokens are a crossing pair, they belong to one run (the longest
 *     such stretch), whose ids come from ``runs`` (a run, a tuple of str -> per pre-token a
 *     tuple of ids; cleared when it holds ``limit`` runs and one more is to be kept), worked
 *     out the first time as Joiner._run does: by .run's scan, or by ``long_run(run, ids)``
 *     (Python: Joiner._run) for a run of long_from pre-tokens or more.
 *
 *     A pre-token ``pieces`` does not hold is worked out here when ``words`` was given: its
 *     word merges (words' work_out) and, when none of the tokens it ends as is tainted
 *     (BoundlessEvents.word's fast path: no deletion touched its making), its Join: (the
 *     token, made_at[token] or -1, NEVER) when it is one token that a supermerge takes, else
 *     APART. Its ids, Join and token are kept in pieces, joins and tokens (each cleared when
 *     it holds ``limit`` pre-tokens, as PieceCache.remember). A tainted one goes to
 *     pieces.__missing__ (Python's replay) instead.
 */

#define NEVER_POS ((int64_t)1 << 62)   /* boundless.NEVER: a position after every event */

typedef struct {
    PyObject_HEAD
    Spans pairs;          /* super_pairs: (left, right) -> (position, the token it makes) */
    Spans crossing;       /* the crossing pairs, with no values */
    Py_ssize_t long_from;
    Merger *words;        /* the word merges (NULL: every new pre-token goes to Python) */
    PyObject *tainted, *joining, *made_at, *apart;  /* (apart: boundless.APART) */
} Supermerges;

/* The supermerge of (a, b): its (position, the token it makes), or NULL. */
static inline const int64_t *super_of(const Supermerges *m, int64_t a, int64_t b)
{
    if (a < 0 || b < 0 || a > UINT32_MAX || b > UINT32_MAX)
        return NULL;
    Py_ssize_t n;
    return spans_get(&m->pairs, (uint64_t)a << 32 | (uint64_t)b, &n);
}

/* Whether a supermerge may cross between pre-tokens whose tokens are a and b (-1: never joins). */
static inline int crosses(const Supermerges *m, int64_t a, int64_t b)
{
    if (a < 0 || b < 0 || a > UINT32_MAX || b > UINT32_MAX)
        return 0;
    Py_ssize_t n;
    return spans_get(&m->crossing, (uint64_t)a << 32 | (uint64_t)b, &n) != NULL;
}

static int Supermerges_init(Supermerges *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"super_pairs", "crossing", "long_from", "words", "tainted", "joining", "made_at", NULL};
    PyObject *pairs, *crossing, *words = Py_None, *tainted = Py_None, *joining = Py_None, *made_at = Py_None;
    Py_ssize_t long_from;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!On|OOOO", names, &PyDict_Type, &pairs, &crossing, &long_from, &words, &tainted,
                                     &joining, &made_at))
        return -1;
    int with_words = words != Py_None;
    if (!PyAnySet_Check(crossing) ||
        (with_words && (!PyObject_TypeCheck(words, &MergerType) || !PyAnySet_Check(tainted) || !PyAnySet_Check(joining) ||
                        !PyDict_Check(made_at)))) {
        PyErr_SetString(PyExc_TypeError,
                        "Supermerges(super_pairs: dict, crossing: set, long_from: int, words: Merger = None, tainted: set, joining: set, made_at: dict)");
        return -1;
    }
    Py_ssize_t at = 0;
    PyObject *key, *value;
    while (PyDict_Next(pairs, &at, &key, &value)) {
        if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) != 2) {
            PyErr_SetString(PyExc_TypeError, "a supermerge is (position, the token it makes)");
            return -1;
        }
    }
    Py_XSETREF(self->words, with_words ? (Merger *)Py_NewRef(words) : NULL);
    Py_XSETREF(self->tainted, with_words ? Py_NewRef(tainted) : NULL);
    Py_XSETREF(self->joining, with_words ? Py_NewRef(joining) : NULL);
    Py_XSETREF(self->made_at, with_words ? Py_NewRef(made_at) : NULL);
    Py_XSETREF(self->apart, Py_BuildValue("(LLL)", -1LL, (long long)NEVER_POS, -1LL));
    if (self->apart == NULL)
        return -1;
    spans_free(&self->pairs);
    spans_free(&self->crossing);
    self->long_from = long_from;
    return spans_build(&self->pairs, pairs, 1) < 0 || spans_build(&self->crossing, crossing, 1) < 0 ? -1 : 0;
}

/* The word Merger calls back into the table's encoder, which holds this object: the garbage
 * collector must see these references (as the Merger's). */
static int Supermerges_traverse(Supermerges *self, visitproc visit, void *arg)
{
    Py_VISIT(self->words);
    Py_VISIT(self->tainted);
    Py_VISIT(self->joining);
    Py_VISIT(self->made_at);
    return 0;
}

static int Supermerges_clear(Supermerges *self)
{
    Py_CLEAR(self->words);
    Py_CLEAR(self->tainted);
    Py_CLEAR(self->joining);
    Py_CLEAR(self->made_at);
    Py_CLEAR(self->apart);
    return 0;
}

static void Supermerges_dealloc(Supermerges *self)
{
    PyObject_GC_UnTrack(self);
    Supermerges_clear(self);
    spans_free(&self->pairs);
    spans_free(&self->crossing);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The position at which items i and j (= the item now right of i) join, or NEVER_POS: their
 * supermerge's, if both are whole then (BoundlessEvents.run's when). */
static inline int64_t join_at(const Supermerges *m, const int64_t *token, const int64_t *since, const int64_t *until,
                              Py_ssize_t i, Py_ssize_t j)
{
    const int64_t *s = super_of(m, token[i], token[j]);
    if (s == NULL)
        return NEVER_POS;
    int64_t pos = s[0];
    return since[i] < pos && pos < until[i] && since[j] < pos && pos < until[j] ? pos : NEVER_POS;
}

/* The scan over a run of n Joins (token, since, until: n each; changed in place): merged[i]
 * gets the token a supermerge made at item i (-1: none), and gone[i] is 1 for an item a
 * supermerge on its left took. The columns are kept whole and a next[] list skips the gone
 * items, so an item's place is its first pre-token. */
static void scan_run(const Supermerges *m, Py_ssize_t n, int64_t *token, int64_t *since, int64_t *until, int64_t *merged,
                     Py_ssize_t *next, int64_t *when)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        merged[i] = -1;
        next[i] = i + 1;
    }
    for (Py_ssize_t i = 0; i + 1 < n; i++)
        when[i] = join_at(m, token, since, until, i, i + 1);
    for (;;) {
        Py_ssize_t best_i = -1, prev_i = -1, before = -1;
        int64_t best = NEVER_POS;
        for (Py_ssize_t i = 0; next[i] < n; prev_i = i, i = next[i])
            if (when[i] < best) {  /* (strictly: the leftmost of equal positions) */
                best = when[i];
                best_i = i;
                before = prev_i;
            }
        if (best_i < 0)
            return;
        Py_ssize_t i = best_i, j = next[i];
        token[i] = merged[i] = super_of(m, token[i], token[j])[1];
        since[i] = best;
        until[i] = NEVER_POS;
        next[i] = next[j];
        next[j] = -1;  /* gone */
        if (before >= 0)
            when[before] = join_at(m, token, since, until, before, i);
        if (next[i] < n)
            when[i] = join_at(m, token, since, until, i, next[i]);
        else
            when[i] = NEVER_POS;
    }
}

/* The three columns of a run's Joins (a sequence of n (token, since, until) tuples). */
static int join_columns(PyObject *const *joins, Py_ssize_t n, int64_t *token, int64_t *since, int64_t *until)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *join = joins[i];
        if (!PyTuple_Check(join) || PyTuple_GET_SIZE(join) != 3) {
            PyErr_SetString(PyExc_TypeError, "a Join is a (token, since, until) tuple");
            return -1;
        }
        token[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(join, 0));
        since[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(join, 1));
        until[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(join, 2));
        if (PyErr_Occurred())
            return -1;
    }
    return 0;
}

/* Scratch for a run of n: six columns of n, in one block. */
typedef struct {
    int64_t *token, *since, *until, *merged, *when;
    Py_ssize_t *next;
} RunColumns;

static int run_columns(RunColumns *c, Py_ssize_t n)
{
    size_t each = (size_t)(n > 0 ? n : 1);
    int64_t *block = PyMem_Malloc(each * 6 * sizeof(int64_t));
    if (block == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *c = (RunColumns){block, block + each, block + 2 * each, block + 3 * each, block + 4 * each, (Py_ssize_t *)(block + 5 * each)};
    return 0;
}

static PyObject *Supermerges_run(Supermerges *self, PyObject *arg)
{
    PyObject *joins = PySequence_Fast(arg, "run takes a sequence of Joins");
    if (joins == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(joins);
    RunColumns c;
    PyObject *out = NULL;
    if (run_columns(&c, n) < 0)
        goto done;
    if (join_columns(PySequence_Fast_ITEMS(joins), n, c.token, c.since, c.until) < 0)
        goto done;
    scan_run(self, n, c.token, c.since, c.until, c.merged, c.next, c.when);
    if ((out = PyList_New(0)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i = c.next[i]) {
        PyObject *item = c.merged[i] < 0 ? Py_BuildValue("(nO)", i, Py_None) : Py_BuildValue("(nL)", i, (long long)c.merged[i]);
        if (item == NULL || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(out);
            goto done;
        }
        Py_DECREF(item);
    }
done:
    PyMem_Free(c.token);
    Py_DECREF(joins);
    return out;
}

/* cache[word], asking the dict first and its __missing__ (Python) only for a word not held. */
static PyObject *cached(PyObject *cache, PyObject *word)
{
    PyObject *found = PyDict_GetItemWithError(cache, word);
    if (found != NULL)
        return Py_NewRef(found);
    return PyErr_Occurred() ? NULL : PyObject_GetItem(cache, word);
}

/* cache[word] = value, the cache cleared first when it holds ``limit`` (PieceCache.remember). */
static int remember(PyObject *cache, PyObject *word, PyObject *value, Py_ssize_t limit)
{
    if (PyDict_GET_SIZE(cache) >= limit)
        PyDict_Clear(cache);
    return PyDict_SetItem(cache, word, value);
}

/* A pre-token's ids (a new reference), from ``pieces``, else worked out: by the word merges
 * here when it ends as no tainted token (its Join and token remembered), by Python otherwise. */
static PyObject *pieces_of(Supermerges *self, PyObject *word, PyObject *pieces, PyObject *tokens, PyObject *joins,
                           Py_ssize_t limit)
{
    PyObject *ids = PyDict_GetItemWithError(pieces, word);
    if (ids != NULL)
        return Py_NewRef(ids);
    if (PyErr_Occurred())
        return NULL;
    if (self->words == NULL || !PyUnicode_CheckExact(word))
        return PyObject_GetItem(pieces, word);
    ids = work_out(self->words, word);
    if (ids == NULL)
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(ids);
    for (Py_ssize_t k = 0; k < n; k++) {
        int in = PySet_Contains(self->tainted, PyTuple_GET_ITEM(ids, k));
        if (in != 0) {  /* tainted (or an error): Python's replay decides */
            Py_DECREF(ids);
            return in < 0 ? NULL : PyObject_GetItem(pieces, word);
        }
    }
    PyObject *join = NULL;
    int whole = n == 1 ? PySet_Contains(self->joining, PyTuple_GET_ITEM(ids, 0)) : 0;
    if (whole < 0)
        goto fail;
    if (whole) {
        PyObject *token = PyTuple_GET_ITEM(ids, 0), *since = PyDict_GetItemWithError(self->made_at, token);
        if (since == NULL && PyErr_Occurred())
            goto fail;
        join = since != NULL ? Py_BuildValue("(OOL)", token, since, (long long)NEVER_POS)
                             : Py_BuildValue("(OLL)", token, -1LL, (long long)NEVER_POS);
        if (join == NULL)
            goto fail;
    } else {
        join = Py_NewRef(self->apart);
    }
    if (remember(joins, word, join, limit) < 0 || remember(tokens, word, PyTuple_GET_ITEM(join, 0), limit) < 0 ||
        remember(pieces, word, ids, limit) < 0)
        goto fail;
    Py_DECREF(join);
    return ids;
fail:
    Py_XDECREF(join);
    Py_DECREF(ids);
    return NULL;
}

/* What a run of pre-tokens gives, per pre-token (Joiner._run): its own ids where no
 * supermerge took it, (the token) where a supermerge made one, () where one took it in. */
static PyObject *work_out_run(Supermerges *self, PyObject *key, PyObject **ids, PyObject *joins_cache, PyObject *long_run)
{
    Py_ssize_t n = PyTuple_GET_SIZE(key);
    if (n >= self->long_from) {
        PyObject *given = PyList_New(n);
        if (given == NULL)
            return NULL;
        for (Py_ssize_t k = 0; k < n; k++)
            PyList_SET_ITEM(given, k, Py_NewRef(ids[k]));
        PyObject *found = PyObject_CallFunctionObjArgs(long_run, key, given, NULL);
        Py_DECREF(given);
        return found;
    }
    RunColumns c;
    if (run_columns(&c, n) < 0)
        return NULL;
    PyObject *out = NULL, *empty = NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *join = cached(joins_cache, PyTuple_GET_ITEM(key, k));
        int failed = join == NULL || join_columns(&join, 1, c.token + k, c.since + k, c.until + k) < 0;
        Py_XDECREF(join);
        if (failed)
            goto done;
    }
    scan_run(self, n, c.token, c.since, c.until, c.merged, c.next, c.when);
    if ((out = PyTuple_New(n)) == NULL || (empty = PyTuple_New(0)) == NULL)
        goto fail;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item;
        if (c.next[k] < 0)
            item = Py_NewRef(empty);
        else if (c.merged[k] < 0)
            item = Py_NewRef(ids[k]);
        else if ((item = Py_BuildValue("(L)", (long long)c.merged[k])) == NULL)
            goto fail;
        PyTuple_SET_ITEM(out, k, item);
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    Py_XDECREF(empty);
    PyMem_Free(c.token);
    return out;
}

/* The ids ``runs`` keeps for words[start:end], worked out the first time. */
static PyObject *run_ids(Supermerges *self, PyObject *const *words, PyObject **ids, Py_ssize_t n, PyObject *runs,
                         Py_ssize_t limit, PyObject *joins_cache, PyObject *long_run)
{
    PyObject *key = PyTuple_New(n);
    if (key == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < n; k++)
        PyTuple_SET_ITEM(key, k, Py_NewRef(words[k]));
    PyObject *found = PyDict_GetItemWithError(runs, key);
    if (found != NULL || PyErr_Occurred()) {
        Py_XINCREF(found);
        Py_DECREF(key);
        return found;
    }
    found = work_out_run(self, key, ids, joins_cache, long_run);
    if (found != NULL && PyDict_GET_SIZE(runs) >= limit)
        PyDict_Clear(runs);
    if (found != NULL && PyDict_SetItem(runs, key, found) < 0)
        Py_CLEAR(found);
    Py_DECREF(key);
    return found;
}

static PyObject *Supermerges_join_words(Supermerges *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7 || !PyDict_Check(args[1]) || !PyDict_Check(args[2]) || !PyDict_Check(args[3]) || !PyDict_Check(args[4]) ||
        !PyLong_Check(args[5]) || !PyCallable_Check(args[6])) {
        PyErr_SetString(PyExc_TypeError,
                        "join_words(words, pieces: dict, tokens: dict, joins: dict, runs: dict, limit: int, long_run: callable)");
        return NULL;
    }
    PyObject *pieces = args[1], *tokens = args[2], *joins = args[3], *runs = args[4], *long_run = args[6];
    Py_ssize_t limit = PyLong_AsSsize_t(args[5]);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    PyObject *words = PySequence_Fast(args[0], "join_words takes a sequence of pre-tokens");
    if (words == NULL)
        return NULL;
    PyObject *const *word = PySequence_Fast_ITEMS(words);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(words);
    PyObject *out = NULL, *found = NULL, **gives = NULL, **ids = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof(PyObject *));
    int64_t *token = PyMem_Malloc((n > 0 ? (size_t)n : 1) * sizeof(int64_t));
    if (ids == NULL || token == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* First every pre-token's ids (working one out remembers its Join), then its token. */
    for (Py_ssize_t k = 0; k < n; k++) {
        if (k % CHECK_EVERY == CHECK_EVERY - 1 && PyErr_CheckSignals() < 0)
            goto done;
        if ((ids[k] = pieces_of(self, word[k], pieces, tokens, joins, limit)) == NULL)
            goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *t = cached(tokens, word[k]);
        if (t == NULL)
            goto done;
        token[k] = PyLong_AsLongLong(t);
        Py_DECREF(t);
        if (token[k] == -1 && PyErr_Occurred())
            goto done;
    }
    /* Then what each pre-token gives: its own ids, or its part of its run's (from ``runs``,
     * kept alive in ``found``); the ids are counted, and put into a list made that long. */
    if ((found = PyList_New(0)) == NULL)
        goto done;
    if ((gives = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof(PyObject *))) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t k = 0, end; k < n; k = end) {
        end = k + 1;  /* the run starting at k: while the next pre-token crosses */
        while (end < n && crosses(self, token[end - 1], token[end]))
            end++;
        if (end == k + 1) {
            gives[k] = ids[k];
        } else {
            PyObject *run = run_ids(self, word + k, ids + k, end - k, runs, limit, joins, long_run);
            PyObject *each = run == NULL ? NULL : PySequence_Tuple(run);
            Py_XDECREF(run);
            int failed = each == NULL || PyList_Append(found, each) < 0;
            Py_XDECREF(each);  /* (found holds it) */
            if (failed)
                goto done;
            if (PyTuple_GET_SIZE(each) != end - k) {
                PyErr_SetString(PyExc_ValueError, "a run's ids are one sequence per pre-token");
                goto done;
            }
            for (Py_ssize_t j = k; j < end; j++)
                gives[j] = PyTuple_GET_ITEM(each, j - k);
        }
        for (Py_ssize_t j = k; j < end; j++) {
            if (!PyTuple_Check(gives[j])) {
                PyErr_SetString(PyExc_TypeError, "a pre-token's ids are a tuple");
                goto done;
            }
            total += PyTuple_GET_SIZE(gives[j]);
        }
    }
    if ((out = PyList_New(total)) == NULL)
        goto done;
    for (Py_ssize_t k = 0, at = 0; k < n; k++)
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(gives[k]); j++)
            PyList_SET_ITEM(out, at++, Py_NewRef(PyTuple_GET_ITEM(gives[k], j)));
done:
    for (Py_ssize_t j = 0; ids != NULL && j < n; j++)
        Py_XDECREF(ids[j]);
    PyMem_Free(ids);
    PyMem_Free(token);
    PyMem_Free(gives);
    Py_XDECREF(found);
    Py_DECREF(words);
    return out;
}

static PyMethodDef Supermerges_methods[] = {
    {"run", (PyCFunction)Supermerges_run, METH_O, "run(joins) -> [(first, merged or None)]: BoundlessEvents.run's scan, in C."},
    {"join_words", (PyCFunction)(void (*)(void))Supermerges_join_words, METH_FASTCALL,
     "join_words(words, pieces, tokens, joins, runs, limit, long_run) -> list: Joiner.joined_python, in C."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SupermergesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_tui.core.engine._merge_core.Supermerges",
    .tp_doc = "A BoundlessBPE table's supermerges, for the pass across pre-tokens (see its section of _merge_core.c).",
    .tp_basicsize = sizeof(Supermerges),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Supermerges_init,
    .tp_dealloc = (destructor)Supermerges_dealloc,
    .tp_traverse = (traverseproc)Supermerges_traverse,
    .tp_clear = (inquiry)Supermerges_clear,
    .tp_methods = Supermerges_methods,
};

static int add_join_functions(PyObject *module)
{
    if (PyType_Ready(&SupermergesType) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Supermerges", (PyObject *)&SupermergesType);
}


/* ================================================================== the replay of events (PickyBPE, BoundlessBPE)
 *
 * Replayer(merge_at, made, split_at, parts).replay(symbols, logged=False)
 *     -> ids (a list), or (ids, events) when logged
 *
 * Mirrors Removals.replay_python() in bpe_tui/core/tables/removals.py, the reference: a
 * pre-token's base ids with a table's events replayed in order. An event has a position
 * (removals.SLOTS); repeatedly the earliest event at or after the last one applied that
 * applies to the word now (a merge of a pair it holds, a removal of a token it holds) is
 * applied everywhere in it: a merge left to right without overlaps, a removal by putting the
 * token's parts in its place. ``events`` are ReplayLog's: (position, the pair or the token,
 * the word after it as a tuple).
 *
 *   merge_at  (left, right) -> the positions of the merges of that pair, ascending
 *   made      a merge's position -> the token it makes
 *   split_at  token -> the positions of its removals, ascending
 *   parts     a removal's position -> the tokens it splits into
 *
 * All four go into Spans (the index of the section before: a 64-bit key -> int64 values).
 */

/* The first of ``n`` ascending positions at or after ``last`` (bisect_left), or -1. */
static inline int64_t first_from(const int64_t *positions, Py_ssize_t n, int64_t last)
{
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (positions[mid] < last)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n ? positions[lo] : -1;
}

typedef struct {
    PyObject_HEAD
    Spans merge_at, made, split_at, parts;
} Replayer;

static int Replayer_init(Replayer *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"merge_at", "made", "split_at", "parts", NULL};
    PyObject *merge_at, *made, *split_at, *parts;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO", names, &merge_at, &made, &split_at, &parts))
        return -1;
    spans_free(&self->merge_at);
    spans_free(&self->made);
    spans_free(&self->split_at);
    spans_free(&self->parts);
    if (spans_build(&self->merge_at, merge_at, 1) < 0 || spans_build(&self->made, made, 0) < 0 ||
        spans_build(&self->split_at, split_at, 0) < 0 || spans_build(&self->parts, parts, 0) < 0)
        return -1;
    return 0;
}

static void Replayer_dealloc(Replayer *self)
{
    spans_free(&self->merge_at);
    spans_free(&self->made);
    spans_free(&self->split_at);
    spans_free(&self->parts);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *ints_tuple(const int64_t *ids, Py_ssize_t n)
{
    PyObject *out = PyTuple_New(n);
    for (Py_ssize_t k = 0; out != NULL && k < n; k++) {
        PyObject *id = PyLong_FromLongLong(ids[k]);
        if (id == NULL)
            Py_CLEAR(out);
        else
            PyTuple_SET_ITEM(out, k, id);
    }
    return out;
}

/* Append (position, what, the word as a tuple) to events; what is the pair (a, b) or the token a. */
static int log_event(PyObject *events, int64_t position, int merge, int64_t a, int64_t b, const int64_t *word, Py_ssize_t n)
{
    PyObject *after = ints_tuple(word, n);
    if (after == NULL)
        return -1;
    PyObject *event = merge ? Py_BuildValue("(L(LL)N)", (long long)position, (long long)a, (long long)b, after)
                            : Py_BuildValue("(LLN)", (long long)position, (long long)a, after);
    if (event == NULL)
        return -1;
    int failed = PyList_Append(events, event);
    Py_DECREF(event);
    return failed;
}

static PyObject *Replayer_replay(Replayer *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "replay(symbols, logged=False)");
        return NULL;
    }
    int logged = nargs == 2 ? PyObject_IsTrue(args[1]) : 0;
    if (logged < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(args[0], "replay takes a list of ids");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), cap = n + 1;
    PyObject *out = NULL, *events = NULL;
    int64_t *word = PyMem_Malloc((size_t)cap * sizeof(int64_t)), *next = PyMem_Malloc((size_t)cap * sizeof(int64_t));
    if (word == NULL || next == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        word[k] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, k));
        if (word[k] == -1 && PyErr_Occurred())
            goto done;
    }
    if (logged && (events = PyList_New(0)) == NULL)
        goto done;
    int64_t last = -1;
    for (;;) {
        int64_t best = -1, a = 0, b = 0;
        int merge = 0;
        Py_ssize_t count;
        for (Py_ssize_t i = 0; i + 1 < n; i++) {  /* the merges of a pair the word holds */
            if (word[i] < 0 || word[i + 1] < 0 || word[i] > UINT32_MAX || word[i + 1] > UINT32_MAX)
                continue;  /* (an unknown symbol is in no pair) */
            const int64_t *positions = spans_get(&self->merge_at, (uint64_t)word[i] << 32 | (uint64_t)word[i + 1], &count);
            int64_t pos = positions == NULL ? -1 : first_from(positions, count, last);
            if (pos >= 0 && (best < 0 || pos < best)) {
                best = pos, merge = 1, a = word[i], b = word[i + 1];
            }
        }
        for (Py_ssize_t i = 0; i < n; i++) {  /* the removals of a token the word holds */
            if (word[i] < 0)
                continue;
            const int64_t *positions = spans_get(&self->split_at, (uint64_t)word[i], &count);
            int64_t pos = positions == NULL ? -1 : first_from(positions, count, last);
            if (pos >= 0 && (best < 0 || pos < best)) {
                best = pos, merge = 0, a = word[i];
            }
        }
        if (best < 0)
            break;
        last = best;
        Py_ssize_t m = 0;
        if (merge) {
            const int64_t *made = spans_get(&self->made, (uint64_t)best, &count);
            if (made == NULL || count != 1) {
                PyErr_Format(PyExc_KeyError, "no token for the merge at position %lld", (long long)best);
                goto done;
            }
            for (Py_ssize_t i = 0; i < n;) {
                if (i + 1 < n && word[i] == a && word[i + 1] == b) {
                    next[m++] = made[0];
                    i += 2;
                } else {
                    next[m++] = word[i++];
                }
            }
        } else {
            const int64_t *parts = spans_get(&self->parts, (uint64_t)best, &count);
            if (parts == NULL) {
                PyErr_Format(PyExc_KeyError, "no parts for the removal at position %lld", (long long)best);
                goto done;
            }
            Py_ssize_t grown = 0;
            for (Py_ssize_t i = 0; i < n; i++)
                grown += word[i] == a ? count : 1;
            if (grown > cap) {  /* (parts spell their token, so a word rarely grows past its symbols) */
                int64_t *more = PyMem_Realloc(next, (size_t)grown * sizeof(int64_t));
                int64_t *also = more == NULL ? NULL : PyMem_Realloc(word, (size_t)grown * sizeof(int64_t));
                if (more != NULL)
                    next = more;
                if (also == NULL) {
                    PyErr_NoMemory();
                    goto done;
                }
                word = also;
                cap = grown;
            }
            for (Py_ssize_t i = 0; i < n; i++) {
                if (word[i] == a) {
                    memcpy(next + m, parts, (size_t)count * sizeof(int64_t));
                    m += count;
                } else {
                    next[m++] = word[i];
                }
            }
        }
        int64_t *swap = word;
        word = next;
        next = swap;
        n = m;
        if (logged && log_event(events, best, merge, a, b, word, n) < 0)
            goto done;
    }
    out = PyList_New(n);
    for (Py_ssize_t k = 0; out != NULL && k < n; k++) {
        PyObject *id = PyLong_FromLongLong(word[k]);
        if (id == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, k, id);
    }
    if (out != NULL && logged)
        out = Py_BuildValue("(NO)", out, events);
done:
    PyMem_Free(word);
    PyMem_Free(next);
    Py_XDECREF(events);
    Py_DECREF(seq);
    return out;
}

static PyMethodDef Replayer_methods[] = {
    {"replay", (PyCFunction)(void (*)(void))Replayer_replay, METH_FASTCALL,
     "replay(symbols, logged=False) -> ids, or (ids, events): Removals.replay_python, in C."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ReplayerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bpe_tui.core.engine._merge_core.Replayer",
    .tp_doc = "A table's merges and removals, indexed for the replay (see its section of _merge_core.c).",
    .tp_basicsize = sizeof(Replayer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Replayer_init,
    .tp_dealloc = (destructor)Replayer_dealloc,
    .tp_methods = Replayer_methods,
};

static int add_replay_functions(PyObject *module)
{
    if (PyType_Ready(&ReplayerType) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Replayer", (PyObject *)&ReplayerType);
}
