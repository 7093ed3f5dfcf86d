/* The on-disk kernel cache: compiled binaries keyed by a hash.
 *
 * Directory: $EMBER_CACHE_DIR, else $XDG_CACHE_HOME/ember/kernels, else
 * ~/.cache/ember/kernels; missing components are created 0700.  The modes of
 * an existing directory are never changed: if it is ours and private (no
 * group or other access) entries go in it, else in a subdirectory
 * "ember-<uid>" that we create 0700 and check (ours, a real directory,
 * private) before every use.  When no directory is usable (EMBER_CACHE_DIR
 * names a file, a read-only parent, a subdirectory that is not ours) or an
 * entry cannot be written, Ember warns once on stderr and compiles in
 * memory: the cache is an optimisation, never a reason to fail.
 *
 * The key hashes everything that changes the binary (source, options,
 * compiler version, arch, Ember version); the caller passes those as parts.
 * An entry is
 *   "EMKC0002" | u64 payload bytes | u64 checksum | payload
 * where the checksum is FNV-1a of the entry's file name then the payload, so
 * a valid entry copied under another key's name does not verify.  It is
 * written to a temporary file and renamed into place, so readers see a whole
 * entry or none.  Reading opens without following links and without
 * blocking (a FIFO in place of an entry does not hang), accepts only a
 * regular file of exactly the header's size, reads it into memory (never
 * mmap: a file truncated under a mapping is SIGBUS) and verifies the
 * checksum; anything else is a miss, and the rebuilt binary replaces it.
 */
#ifndef EM_DISKCACHE_H
#define EM_DISKCACHE_H

#include "core/core.h"

/* The cache directory (created on first use); false if unusable (warned once). */
EM_API bool em_diskcache_dir(char *buf, size_t len);
/* The file name for a key made of nparts strings. */
EM_API void em_diskcache_name(int nparts, const char *const *parts, char *name, size_t len);
/* Read an entry: *data (malloc'ed) and *n on a hit; false on a miss. */
EM_API bool em_diskcache_get(const char *name, void **data, size_t *n);
/* Store an entry atomically; false if it could not be written (warned once). */
EM_API bool em_diskcache_put(const char *name, const void *data, size_t n);
/* One compile through the cache, as each compiler that keeps its binaries
 * here does it (NVRTC, OpenCL's program build): the entry is named by the
 * key -- the source, the options, what else changes the binary (compiler
 * and driver versions, the device, Ember's version) and the C++ name
 * expressions, in that order; a verified entry is offered to take, which
 * may refuse it (a driver that does not load it), else build compiles and
 * the binary is stored.  EMBER_DEBUG >= 4 prints the source, >= 2 logs the
 * hit or the miss with its times.  take and build get the request. */
typedef struct em_cache_compile em_cache_compile;
struct em_cache_compile {
    const char *compiler; /* who compiles, for the log: "NVRTC", "OpenCL" */
    const char *name;     /* the kernel's, for messages */
    const char *src;
    const char *const *opts;
    int nopt;
    const char *const *ids; /* versions, device: the rest of the key */
    int nids;
    const char *const *names; /* name expressions (NVRTC's), or none */
    int nnames;
    void *ctx; /* the compiler's own state */
    /* Use a cached binary; false refuses it.  NULL: every verified entry is used. */
    bool (*take)(const em_cache_compile *c, const void *bin, size_t n);
    /* Compile: *bin (malloc'ed; NULL when the compiler gives no binary to keep). */
    em_status (*build)(const em_cache_compile *c, void **bin, size_t *n);
};
/* *bin and *n: the binary of the hit or of the build (malloc'ed; the caller
 * frees it; NULL when build gave none). */
EM_API em_status em_diskcache_compile(const em_cache_compile *c, void **bin, size_t *n);
/* An entry of a binary and a table of strings (each NUL-terminated):
 *   u64 binary bytes | binary | table
 * join makes one from bin (taken and freed) and returns it (NULL without
 * memory), *len its size; split moves the binary to the front of the same
 * buffer (*bin_n bytes) and copies the table out (malloc'ed), false when the
 * entry is malformed or does not hold nstrings strings. */
EM_API void *em_diskcache_join(void *bin, size_t n, const char *table, size_t tlen, size_t *len);
EM_API bool em_diskcache_split(char *entry, size_t n, int nstrings, size_t *bin_n, char **table);
/* A compiler's failure, as every compiler of Ember reports it (NVRTC, the C
 * JIT): EM_ECOMPILE with head (what failed), the compiler's log, then the
 * source with line numbers -- from the line after EM_PRELUDE_END (backend.h)
 * when the source has one, so the user reads their kernel and not the
 * prelude -- also printed with EMBER_DEBUG >= 1. */
EM_API em_status em_compile_error(const char *head, const char *log, const char *src);
/* 64-bit FNV-1a of n bytes continuing from h (EM_FNV_BASIS to start). */
#define EM_FNV_BASIS 0xcbf29ce484222325ULL
EM_API uint64_t em_fnv1a(uint64_t h, const void *data, size_t n);

#endif
