/* The dtype table and NumPy 2 promotion. */
#include "core/core.h"

#include <string.h>

static const em_dtype_info em__dtypes[EM_NDTYPES] = {
#define EM_DTYPE(E, name, ctype, kind, size, buf) {#name, kind, size, buf},
#include "ember/dtypes.def"
#undef EM_DTYPE
};

const em_dtype_info *em_dtype_get(em_dtype dt) {
    return (unsigned)dt < EM_NDTYPES ? &em__dtypes[dt] : NULL;
}

unsigned em_dtype_kindbit(em_dtype dt) {
    switch (em__dtypes[dt].kind) {
    case 'b': return EM_KB;
    case 'i': return EM_KI;
    case 'u': return EM_KU;
    case 'f': return EM_KF;
    default: return EM_KC;
    }
}

em_dtype em_dtype_from_name(const char *name) {
    for (int i = 0; i < EM_NDTYPES; i++)
        if (strcmp(em__dtypes[i].name, name) == 0) return (em_dtype)i;
    if (strcmp(name, "bool_") == 0) return EM_BOOL;
    return EM_NDTYPES;
}

static em_dtype em__int_of(char kind, int size) {
    static const em_dtype s[] = {EM_INT8, EM_INT16, 0, EM_INT32, 0, 0, 0, EM_INT64};
    static const em_dtype u[] = {EM_UINT8, EM_UINT16, 0, EM_UINT32, 0, 0, 0, EM_UINT64};
    return kind == 'i' ? s[size - 1] : u[size - 1];
}

em_dtype em_float_for(em_dtype dt) {
    const em_dtype_info *d = &em__dtypes[dt];
    switch (d->kind) {
    case 'b': return EM_FLOAT16;
    case 'i':
    case 'u': return d->size == 1 ? EM_FLOAT16 : d->size == 2 ? EM_FLOAT32 : EM_FLOAT64;
    default: return dt;
    }
}

em_dtype em_real_for(em_dtype dt) {
    if (dt == EM_COMPLEX64) return EM_FLOAT32;
    if (dt == EM_COMPLEX128) return EM_FLOAT64;
    return dt;
}

/* Integer promotion: same signedness takes the larger; mixed takes a signed
 * type strictly larger than the unsigned one, or float64 past int64. */
static em_dtype em__promote_int(em_dtype a, em_dtype b) {
    const em_dtype_info *x = &em__dtypes[a], *y = &em__dtypes[b];
    if (x->kind == y->kind) return x->size >= y->size ? a : b;
    const em_dtype_info *u = x->kind == 'u' ? x : y, *s = x->kind == 'u' ? y : x;
    if (s->size > u->size) return x->kind == 'u' ? b : a;
    if (u->size < 8) return em__int_of('i', u->size * 2);
    return EM_FLOAT64;
}

em_dtype em_promote(em_dtype a, em_dtype b) {
    if (a == b) return a;
    char ka = em__dtypes[a].kind, kb = em__dtypes[b].kind;
    if (ka == 'b') return b;
    if (kb == 'b') return a;
    if ((ka == 'i' || ka == 'u') && (kb == 'i' || kb == 'u')) return em__promote_int(a, b);
    /* At least one float or complex: the wider of their float equivalents. */
    em_dtype fa = em_real_for(em_float_for(a)), fb = em_real_for(em_float_for(b));
    em_dtype f = em__dtypes[fa].size >= em__dtypes[fb].size ? fa : fb;
    if (ka == 'c' || kb == 'c') return f == EM_FLOAT64 ? EM_COMPLEX128 : EM_COMPLEX64;
    return f;
}

bool em_can_cast_safe(em_dtype from, em_dtype to) { return em_promote(from, to) == to; }

static int em__kind_rank(char k) {
    return k == 'b' ? 0 : k == 'u' ? 1 : k == 'i' ? 2 : k == 'f' ? 3 : 4;
}

bool em_can_cast_same_kind(em_dtype from, em_dtype to) {
    if (em_can_cast_safe(from, to)) return true;
    int rf = em__kind_rank(em__dtypes[from].kind), rt = em__kind_rank(em__dtypes[to].kind);
    return rf <= rt; /* within a kind, or towards a higher kind */
}
