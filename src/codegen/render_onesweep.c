/* The onesweep radix sort's kernels (render_sort.h, EM_SORT_CLEAR ..
 * EM_SORT_ONESWEEP), appended to the sort source for CUDA only: they need
 * warp-level matching (__match_any_sync), atomics, and blocks that once
 * started run to the end while later blocks wait on them (the decoupled
 * look-back), which CUDA gives and an OpenCL device need not.  OpenCL keeps
 * the reduce-then-scan kernels of render_sort.c.
 *
 * Digits are 8 bits.  The metadata buffer (b5, 32-bit words, EM_M_*):
 *   HIST[q][256]  how many keys have digit d in byte q (every byte at once)
 *   BASE[q][256]  its exclusive scan: where digit d starts in the output
 *   CTR[q]        the tile counter of the pass over byte q
 *   STAT[q][tile][256]  the tiles' status words (below)
 * CLEAR zeroes it; UPSWEEP writes the keys and HIST; HSCAN writes BASE;
 * ONESWEEP moves the keys (and values) by byte p.shift / 8.
 *
 * A pass, per tile of EM_TILE keys (a block takes tiles from CTR until they
 * run out, so tile k's block started before tile k + 1's: waiting on an
 * earlier tile always ends):
 *   rank   warp w holds keys w * EM_WT .. + EM_WT - 1 of the tile, item j of
 *          lane l at w * EM_WT + j * 32 + l; per item, the lanes with the
 *          same digit find each other (__match_any_sync), the lowest adds
 *          their number to the warp's counter of the digit, each takes the
 *          counter before plus the lanes below it: its rank among the
 *          warp's keys of its digit, in tile order;
 *   count  thread d sums digit d over the warps (the warps' offsets) and
 *          publishes the tile's count as an aggregate status word, then
 *          looks back over earlier tiles (adding aggregates until an
 *          inclusive word) and publishes its inclusive prefix;
 *   move   each key goes through shared memory to its place in the tile
 *          sorted by digit (stable: warp, item, lane order), and from there
 *          to BASE[d] + (keys of d in earlier tiles) + (rank in the tile
 *          among keys of d) -- consecutive threads write consecutive
 *          places.  Values follow through the same shared buffer.
 * A status word: bits 30-31 the flag (0 not yet, 1 aggregate, 2
 * inclusive), bits 0-29 the count, so a pass takes fewer than 2^30 keys
 * (run_sort.c takes the reduce-then-scan kernels above that). */
#include "codegen/render_sort.h"

static const char em__onesweep_kernels[] =
    "\n// ---- onesweep (CUDA): 8-bit digits, decoupled look-back ----\n"
    "#define EM_W (EM_B / 32)\n"
    "#define EM_WT (EM_ITEMS * 32)\n"
    "#define EM_M_HIST 0\n"
    "#define EM_M_BASE (8 * 256)\n"
    "#define EM_M_CTR (16 * 256)\n"
    "#define EM_M_STAT (17 * 256)\n"
    "#define EM_AGG (1u << 30)\n"
    "#define EM_INCL (2u << 30)\n"
    "#define EM_VAL ((1u << 30) - 1u)\n"
    "EM_FN em_u32 em_dig8(em_key_t k, em_i64 shift) { return (em_u32)(k >> shift) & 255u; }\n"
    "\n"
    "EM_KERNEL(" EM_SORT_CLEAR ") {\n"
    "    EM_PRO\n"
    "    EM_G em_u32 *m = (EM_G em_u32 *)b5;\n"
    "    const em_i64 words = EM_M_STAT + (em_i64)EM_KBYTES * p.nb * 256;\n"
    "    for (em_i64 i = EM_BID * EM_B + EM_TID; i < words; i += EM_NBLK * EM_B) m[i] = 0;\n"
    "}\n"
    "\n"
    "// The keys (as KEYS: word p.word of element src(i)) and HIST of every\n"
    "// byte, counted in shared memory by one atomic per group of a warp's lanes\n"
    "// with the same digit (data of few digits would serialise on one counter).\n"
    "EM_KERNEL(" EM_SORT_UPSWEEP ") {\n"
    "    EM_SH em_u32 s_h[EM_KBYTES * 256];\n"
    "    EM_PRO\n"
    "    EM_G em_key_t *keys = (EM_G em_key_t *)b1;\n"
    "    EM_G em_i64 *vin = (EM_G em_i64 *)b3, *vout = (EM_G em_i64 *)b4;\n"
    "    EM_G em_u32 *m = (EM_G em_u32 *)b5;\n"
    "    const int t = (int)EM_TID, lane = t & 31;\n"
    "    for (int i = t; i < EM_KBYTES * 256; i += EM_B) s_h[i] = 0;\n"
    "    EM_SYNC\n"
    "    // i0 is the same for the whole block: every lane reaches each match\n"
    "    for (em_i64 i0 = EM_BID * EM_B; i0 < p.n; i0 += EM_NBLK * EM_B) {\n"
    "        const em_i64 i = i0 + t;\n"
    "        const bool valid = i < p.n;\n"
    "        em_key_t k = 0;\n"
    "        if (valid) {\n"
    "            em_i64 src = i;\n"
    "            if (p.mode == 1) src = vin[i];\n"
    "            else if (p.hasvals) vout[i] = i;\n"
    "            k = (em_key_t)em_key_of(&p, b0, src, (int)p.word);\n"
    "            keys[i] = k;\n"
    "        }\n"
    "        for (int q = 0; q < EM_KBYTES; q++) {\n"
    "            const em_u32 d = valid ? em_dig8(k, 8 * q) : 256u + (em_u32)lane;\n"
    "            const em_u32 peers = __match_any_sync(0xffffffffu, d);\n"
    "            if (valid && lane == __ffs(peers) - 1)\n"
    "                atomicAdd(&s_h[q * 256 + d], (em_u32)__popc(peers));\n"
    "        }\n"
    "    }\n"
    "    EM_SYNC\n"
    "    for (int i = t; i < EM_KBYTES * 256; i += EM_B)\n"
    "        if (s_h[i]) atomicAdd(&m[EM_M_HIST + i], s_h[i]);\n"
    "}\n"
    "\n"
    "// One block: BASE[q] = the exclusive scan of HIST[q], every byte q.\n"
    "EM_KERNEL(" EM_SORT_HSCAN ") {\n"
    "    EM_SH em_u32 s[EM_B];\n"
    "    EM_PRO\n"
    "    EM_G em_u32 *m = (EM_G em_u32 *)b5;\n"
    "    const int t = (int)EM_TID;\n"
    "    for (int q = 0; q < EM_KBYTES; q++) {\n"
    "        const em_u32 v = m[EM_M_HIST + q * 256 + t];\n"
    "        s[t] = v;\n"
    "        em_block_scan(s, t);\n"
    "        m[EM_M_BASE + q * 256 + t] = s[t] - v;\n"
    "        EM_SYNC // s is read before the next byte writes it\n"
    "    }\n"
    "}\n"
    "\n"
    "// One pass over byte p.shift / 8 (the file comment of render_onesweep.c).\n"
    "EM_KERNEL(" EM_SORT_ONESWEEP ") {\n"
    "    EM_SH em_u64 s_x[EM_TILE];     // the tile's keys, then values, by digit\n"
    "    EM_SH em_u32 s_wh[EM_W * 256]; // per warp and digit: count, then offset\n"
    "    EM_SH em_u32 s_ds[256];        // the digit's start in the tile\n"
    "    EM_SH em_i64 s_go[256];        // its place in the output less that start\n"
    "    EM_SH em_i64 s_tile;\n"
    "    EM_PRO\n"
    "    EM_G const em_key_t *kin = (EM_G const em_key_t *)b1;\n"
    "    EM_G em_key_t *kout = (EM_G em_key_t *)b2;\n"
    "    EM_G const em_i64 *vin = (EM_G const em_i64 *)b3;\n"
    "    EM_G em_i64 *vout = (EM_G em_i64 *)b4;\n"
    "    EM_G em_u32 *m = (EM_G em_u32 *)b5;\n"
    "    const int t = (int)EM_TID, lane = t & 31, w = t >> 5;\n"
    "    const em_i64 q = p.shift / 8;\n"
    "    volatile EM_G em_u32 *stat = m + EM_M_STAT + q * p.nb * 256;\n"
    "    for (;;) {\n"
    "        if (t == 0) s_tile = (em_i64)atomicAdd(&m[EM_M_CTR + q], 1u);\n"
    "        for (int i = t; i < EM_W * 256; i += EM_B) s_wh[i] = 0;\n"
    "        EM_SYNC\n"
    "        const em_i64 tile = s_tile;\n"
    "        if (tile >= p.nb) break; // the same in every thread\n"
    "        const em_i64 t0 = tile * EM_TILE;\n"
    "        const int cnt = p.n - t0 < EM_TILE ? (int)(p.n - t0) : EM_TILE;\n"
    "        em_key_t k[EM_ITEMS];\n"
    "        em_u32 r[EM_ITEMS];\n"
    "        for (int j = 0; j < EM_ITEMS; j++) {\n"
    "            const int at = w * EM_WT + j * 32 + lane;\n"
    "            const bool valid = at < cnt;\n"
    "            k[j] = valid ? kin[t0 + at] : (em_key_t)0;\n"
    "            const em_u32 d = valid ? em_dig8(k[j], p.shift) : 256u + (em_u32)lane;\n"
    "            const em_u32 peers = __match_any_sync(0xffffffffu, d);\n"
    "            const em_u32 before = valid ? s_wh[w * 256 + d] : 0u;\n"
    "            __syncwarp(); // every peer has read the counter\n"
    "            if (valid && lane == __ffs(peers) - 1)\n"
    "                s_wh[w * 256 + d] = before + (em_u32)__popc(peers);\n"
    "            __syncwarp(); // the next item reads the new counter\n"
    "            r[j] = before + (em_u32)__popc(peers & ((1u << lane) - 1u));\n"
    "        }\n"
    "        EM_SYNC\n"
    "        em_u32 c = 0; // thread t: digit t\n"
    "        for (int v = 0; v < EM_W; v++) {\n"
    "            const em_u32 x = s_wh[v * 256 + t];\n"
    "            s_wh[v * 256 + t] = c;\n"
    "            c += x;\n"
    "        }\n"
    "        stat[tile * 256 + t] = (tile == 0 ? EM_INCL : EM_AGG) | c;\n"
    "        em_u32 ex = 0; // keys of digit t in the tiles before\n"
    "        for (em_i64 u = tile - 1; u >= 0;) {\n"
    "            const em_u32 s = stat[u * 256 + t];\n"
    "            if (!(s >> 30)) continue; // not published yet: read again\n"
    "            ex += s & EM_VAL;\n"
    "            if (s & EM_INCL) break;\n"
    "            u--;\n"
    "        }\n"
    "        if (tile > 0) stat[tile * 256 + t] = EM_INCL | (ex + c);\n"
    "        s_ds[t] = c;\n"
    "        em_block_scan(s_ds, t);\n"
    "        const em_u32 start = s_ds[t] - c;\n"
    "        EM_SYNC // every s_ds[t] read before it changes\n"
    "        s_ds[t] = start;\n"
    "        s_go[t] = (em_i64)m[EM_M_BASE + q * 256 + t] + ex - start;\n"
    "        EM_SYNC\n"
    "        int lp[EM_ITEMS]; // each key's place in the tile sorted by digit\n"
    "        for (int j = 0; j < EM_ITEMS; j++) {\n"
    "            lp[j] = -1;\n"
    "            if (w * EM_WT + j * 32 + lane < cnt) {\n"
    "                const em_u32 d = em_dig8(k[j], p.shift);\n"
    "                lp[j] = (int)(s_ds[d] + s_wh[w * 256 + d] + r[j]);\n"
    "                s_x[lp[j]] = (em_u64)k[j];\n"
    "            }\n"
    "        }\n"
    "        EM_SYNC\n"
    "        em_i64 to[EM_ITEMS];\n"
    "        for (int j = 0; j < EM_ITEMS; j++) {\n"
    "            const int i = j * EM_B + t;\n"
    "            to[j] = -1;\n"
    "            if (i < cnt) {\n"
    "                const em_key_t kk = (em_key_t)s_x[i];\n"
    "                to[j] = s_go[em_dig8(kk, p.shift)] + i;\n"
    "                kout[to[j]] = kk;\n"
    "            }\n"
    "        }\n"
    "        if (p.hasvals) {\n"
    "            EM_SYNC // the keys are read out of s_x\n"
    "            for (int j = 0; j < EM_ITEMS; j++)\n"
    "                if (lp[j] >= 0) s_x[lp[j]] = (em_u64)vin[t0 + w * EM_WT + j * 32 + lane];\n"
    "            EM_SYNC\n"
    "            for (int j = 0; j < EM_ITEMS; j++)\n"
    "                if (to[j] >= 0) vout[to[j]] = (em_i64)s_x[j * EM_B + t];\n"
    "        }\n"
    "        EM_SYNC // s_x, s_ds, s_go and s_tile are read before the next tile\n"
    "    }\n"
    "}\n";

void em_render_sort_onesweep(const em_dialect *d, em_sbuf *src) {
    if (d->id == EM_DIALECT_CUDA) em_sbuf_printf(src, "%s", em__onesweep_kernels);
}
