/* The host memory pool: 64-byte aligned blocks in size classes (four per
 * power of two, so at most 25% slack), cached on free up to a limit and
 * handed out again.  Large fresh allocations are what make NumPy pay page
 * faults on every temporary; reuse avoids them.  Thread-safe.
 * EMBER_HOST_POOL=0 (and the sanitizer build) turns caching off so that
 * ASan sees every allocation. */
#ifndef EM_HOSTPOOL_H
#define EM_HOSTPOOL_H

#include <stddef.h>

void *em_host_alloc(size_t nbytes);
void em_host_free(void *p, size_t nbytes);
/* em_host_pool_peak, the high-water mark, is public: ember/ember.h. */

#endif
