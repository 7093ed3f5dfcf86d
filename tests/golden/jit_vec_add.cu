
EM_DEV void em_vec_add_body(em_ctx *em_c, em_f32 *a_a_p, em_i64 a_a_n0, em_i64 a_a_s0, em_f32 *a_b_p, em_i64 a_b_n0, em_i64 a_b_s0, em_i64 p_n) {
    em_i64 v_idx = 0;
    v_idx = ((em_i64)((em_u64)(((em_i64)threadIdx.x)) + (em_u64)(((em_i64)((em_u64)(((em_i64)blockIdx.x)) * (em_u64)(((em_i64)blockDim.x)))))));
    if (((v_idx) < (p_n))) {
        a_b_p[em_wrap(v_idx, a_b_n0) * a_b_s0] = ((a_b_p[em_wrap(v_idx, a_b_n0) * a_b_s0]) + (a_a_p[em_wrap(v_idx, a_a_n0) * a_a_s0]));
    }
}

extern "C" __global__ void em_vec_add(em_f32 *a_a_p, em_i64 a_a_n0, em_f32 *a_b_p, em_i64 a_b_n0, em_i64 p_n, int *em_err, em_i64 em_dyn) {
    const em_i64 a_a_s0 = 1;
    const em_i64 a_b_s0 = 1;
    em_ctx em_cx = {0, em_err, em_dyn};
    em_ctx *em_c = &em_cx;
    em_vec_add_body(em_c, a_a_p, a_a_n0, a_a_s0, a_b_p, a_b_n0, a_b_s0, p_n);
}
