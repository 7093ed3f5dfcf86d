/* The random-fill kernel: Philox4x32-10 blocks turned into elements by the
 * stream mapping of ember.h (em_random_fill), one thread per Philox block
 * in a grid-stride loop.  Argument (packed, all fields 8 bytes):
 *   char *out; unsigned long long n, key, counter, low, range; double pa, pb. */
#ifndef EM_RENDER_RANDOM_H
#define EM_RENDER_RANDOM_H

#include "codegen/dialect.h"
#include "codegen/render.h"

/* Elements per Philox block for kind into dt (4 for 32-bit outputs, 2 for
 * 64-bit ones and integers); EM_ETYPE for a kind dt cannot hold. */
EM_API em_status em_random_per_block(em_random_kind kind, em_dtype dt, int *per);
/* The kernel (named EM_KNAME) filling dt with kind, prelude included.
 * Dialects whose kernels take one argument struct only (args_struct). */
EM_API em_status em_render_random(const em_dialect *d, em_random_kind kind, em_dtype dt,
                                  em_sbuf *src);
/* The same kernel storing post(v) (em_random_post of ember.h) of each value
 * v of kind in dt (the base dtype: float64 for GEOMETRIC, which stores
 * int64); the argument gains double pa, pb after range. */
EM_API em_status em_render_random_post(const em_dialect *d, em_random_kind kind, em_dtype dt,
                                       em_random_post post, em_sbuf *src);

/* binomial's A/B switches, read from the environment at each render (the
 * kernel cache's key holds both): whether the kernel takes one BTPE
 * proposal a turn (EMBER_BINOM_STEP=0: the per-element loop), and the
 * blocks an SM its CUDA launch bounds ask for (EMBER_BINOM_MINB, default 4;
 * 0 for none). */
bool em_random_binom_stepped(void);
int em_random_binom_minb(void);

/* em_random_choice's kernel: the INTEGERS int64 stream's index j of each
 * element (range p.range, the population's length) and the store of the
 * size-byte element at p.src + j * p.stride in its place.  Argument
 * (packed, 8-byte fields): char *out, *src; unsigned long long n, key,
 * counter, range; long long stride (bytes). */
EM_API em_status em_render_random_choice(const em_dialect *d, int size, em_sbuf *src);

#endif
