/* C unit tests for the dialect tables: lookup and register spelling. */
#include "codegen/dialect.h"
#include "ctest.h"

static void test_lookup(void) {
    CHECK(em_dialect_find("cuda") == &em_dialect_cuda);
    CHECK(em_dialect_find("opencl") == &em_dialect_opencl);
    CHECK(em_dialect_find("c") == &em_dialect_c);
    CHECK(em_dialect_find("metal") == NULL && em_dialect_find(NULL) == NULL);
    CHECK(em_dialect_get(EM_NDIALECTS) == NULL);
    for (int i = 0; i < EM_NDIALECTS; i++) CHECK((int)em_dialect_get((em_dialect_id)i)->id == i);
    /* OpenCL forbids device pointers inside kernel argument structs. */
    CHECK(!em_dialect_opencl.args_struct && em_dialect_cuda.args_struct);
}

static void test_registers(void) {
    char b[32];
    CHECK(strcmp(em_dialect_reg(em_dialect_cuda.local_id, 1, b, sizeof b), "threadIdx.y") == 0);
    CHECK(strcmp(em_dialect_reg(em_dialect_opencl.group_id, 2, b, sizeof b), "get_group_id(2)") ==
          0);
    CHECK(strcmp(em_dialect_reg(em_dialect_c.local_size, 0, b, sizeof b), "em_i.bdim[0]") == 0);
    /* Truncated, still terminated. */
    CHECK(strcmp(em_dialect_reg(em_dialect_cuda.num_groups, 0, b, 5), "grid") == 0);
}

int main(void) {
    RUN(test_lookup);
    RUN(test_registers);
    return ctest_summary();
}
