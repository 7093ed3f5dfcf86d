/* libember from C, without Python: make two arrays, add them with
 * broadcasting, read the result back.  Build: see CMakeLists.txt (the tests
 * build and run this program). */
#include <ember/ember.h>
#include <stdio.h>

int main(void) {
    em_device cpu = {EM_CPU, 0};
    int64_t n = 8, shape_b[] = {1};
    em_array a, b, c = {0};
    if (em_array_empty(&a, EM_FLOAT32, 1, &n, cpu) != EM_OK ||
        em_array_empty(&b, EM_FLOAT32, 1, shape_b, cpu) != EM_OK) {
        fprintf(stderr, "allocation failed: %s\n", em_last_error());
        return 1;
    }
    float host[8];
    for (int i = 0; i < 8; i++) host[i] = (float)i;
    float ten = 10.0f;
    em_array_write(&a, host, sizeof host);
    em_array_write(&b, &ten, sizeof ten);
    const em_array *in[] = {&a, &b};
    if (em_ufunc(EM_OP_ADD, 2, in, EM_NDTYPES, &c) != EM_OK) {
        fprintf(stderr, "add failed: %s\n", em_last_error());
        return 1;
    }
    em_array_read(&c, host, sizeof host);
    int bad = 0;
    for (int i = 0; i < 8; i++) {
        printf("%g ", host[i]);
        bad |= host[i] != (float)i + 10.0f;
    }
    printf("\n");
    /* A mistake gets a status and a message, never a crash. */
    int64_t three = 3;
    em_array d;
    em_array_empty(&d, EM_FLOAT32, 1, &three, cpu);
    const em_array *mismatch[] = {&a, &d};
    em_array e = {0};
    em_status s = em_ufunc(EM_OP_ADD, 2, mismatch, EM_NDTYPES, &e);
    printf("shapes (8,) and (3,): %s: %s\n", em_status_name(s), em_last_error());
    em_array_release(&a), em_array_release(&b), em_array_release(&c), em_array_release(&d);
    return bad || s != EM_ESHAPE;
}
