/* The system C compiler as a JIT: C11 source in, a loaded shared object out.
 *
 * The compiler is $EMBER_CC, else $CC, else the first of cc, gcc, clang on
 * PATH that answers `--version` (probed once per process).  The command may
 * carry arguments ("ccache gcc"); it is split on blanks and run without a
 * shell.  Objects are built with
 *   -std=gnu11 -O2 -fPIC -shared -fwrapv -ffp-contract=off -fno-fast-math
 *   [-march=native unless EMBER_CC_PORTABLE=1] -lm
 * in a private temporary directory (removed when the build ends); the object's
 * bytes are stored as the kernel cache entry <key>.so (codegen/diskcache.h:
 * a header with size and a checksum, written to a temporary name and renamed,
 * verified before use, so a truncated, corrupt, misnamed or non-regular
 * entry is rebuilt rather than loaded).  Objects are loaded from memory (a
 * memfd, else a private temporary file removed once loaded), never mapped
 * from the cache directory, where a file could shrink under the mapping.
 * An unusable cache directory means compiling every process (warned once).
 * The key hashes the source, the flags, the compiler identity (the first
 * line of `cc --version`) and EM_VERSION.  Loaded objects are kept for the life of
 * the process (dlopen RTLD_LOCAL, never closed) in an in-memory table under
 * the same key, so loading the same source twice is a hash lookup.
 * EMBER_DEBUG=2 logs hits and misses with times; 4 also prints the source.
 */
#ifndef EM_JIT_CC_H
#define EM_JIT_CC_H

#include "ember/ember.h"

typedef struct em_cc_lib em_cc_lib; /* a loaded shared object; lives for the process */

/* Whether a C compiler is usable.  false -> em_last_error() says why. */
EM_API bool em_cc_available(void);
/* Compile and load src (see above).  EM_ECOMPILE carries the compiler's
 * output and the numbered source; EM_EUNSUPPORTED when there is no compiler.
 * `name` is for messages and logs only. */
EM_API em_status em_cc_load(const char *src, const char *name, em_cc_lib **out);
/* The address of symbol sym in lib, NULL if absent. */
EM_API void *em_cc_sym(em_cc_lib *lib, const char *sym);
/* The compiler command in use ("" when none), for messages and tests. */
EM_API const char *em_cc_command(void);

#endif
