/* One op as one kernel, for any dialect (see render_op.h). */
#include "codegen/render_op.h"

#include <stdio.h>

em_dtype em_op1_out_dtype(em_op op, em_dtype loop) {
    switch (em_op_get(op)->resolver) {
    case EM_RES_CMP:
    case EM_RES_PRED:
    case EM_RES_BOOL: return EM_BOOL;
    case EM_RES_REAL: return em_real_for(loop);
    default: return loop;
    }
}

/* The storage type of dt in this dialect's buffers. */
static const char *em__store(const em_dialect *d, em_dtype dt) {
    static const char *const names[EM_NDTYPES] = {"bool",   "em_i8",  "em_i16", "em_i32", "em_i64",
                                                  "em_u8",  "em_u16", "em_u32", "em_u64", "em_f16",
                                                  "em_f32", "em_f64", "em_c64", "em_c128"};
    return dt == EM_BOOL ? d->bool_storage : names[dt];
}

em_status em_render_op1(const em_dialect *d, em_op op, em_dtype loop, const char *name,
                        em_sbuf *s) {
    const em_op_info *info = em_op_get(op);
    if (!d || !info || (unsigned)loop >= EM_NDTYPES)
        return em_error(EM_EVALUE, "em_render_op1: bad dialect, op or dtype");
    const char *g = d->global, *sp = *g ? " " : "";
    em_dtype out = em_op1_out_dtype(op, loop);
    em_sbuf_printf(s, "\n// %s on %s, %s\n", info->name, em_dtype_get(loop)->name, d->name);
    em_sbuf_printf(s, "%s %s(%s%s%s *out", d->kernel, name ? name : EM_OP1_KERNEL, g, sp,
                   em__store(d, out));
    for (int k = 0; k < info->nin; k++) {
        em_dtype t = op == EM_OP_WHERE && k == 0 ? EM_BOOL : loop;
        em_sbuf_printf(s, ", %s%sconst %s *in%d", g, sp, em__store(d, t), k);
    }
    em_sbuf_printf(s, ", em_i64 n) {\n");
    if (d->id == EM_DIALECT_C) {
        em_sbuf_printf(s, "    for (em_i64 i = 0; i < n; i++) {\n");
    } else {
        char gid[48], lsz[48], lid[48];
        em_sbuf_printf(s, "    const em_i64 i = (em_i64)%s * %s + %s;\n    if (i < n) {\n",
                       em_dialect_reg(d->group_id, 0, gid, sizeof gid),
                       em_dialect_reg(d->local_size, 0, lsz, sizeof lsz),
                       em_dialect_reg(d->local_id, 0, lid, sizeof lid));
    }
    /* Loads convert bool storage to bool; the call is the scalar library's. */
    em_sbuf_printf(s, "        const %s r = em_%s_%s(", out == EM_BOOL ? "bool" : em__store(d, out),
                   info->name, em_scalar_suffix(loop));
    for (int k = 0; k < info->nin; k++) {
        bool b = (op == EM_OP_WHERE && k == 0) || loop == EM_BOOL;
        em_sbuf_printf(s, "%s%sin%d[i]", k ? ", " : "", b ? "(bool)" : "", k);
    }
    em_sbuf_printf(s, ");\n        out[i] = %sr;\n    }\n}\n",
                   out == EM_BOOL ? (d->bool_storage[0] == 'u' ? "(uchar)" : "") : "");
    return s->oom ? em_error(EM_ENOMEM, "out of memory rendering %s", info->name) : EM_OK;
}
