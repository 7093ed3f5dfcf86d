/* libember views from C: wrap memory the program owns (no copy), slice and
 * transpose it as views, compute into a transposed output, and watch the
 * release callback run once when the last view goes. */
#include <ember/ember.h>
#include <stdio.h>

static int released;
static void on_release(void *ctx) {
    released++;
    printf("release callback: %s\n", (const char *)ctx);
}

int main(void) {
    static double grid[3][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}};
    em_device cpu = {EM_CPU, 0};
    int64_t shape[] = {3, 4};
    em_array g, cols, t, out = {0};
    if (em_array_wrap(&g, grid, EM_FLOAT64, 2, shape, NULL, cpu, on_release, "grid") != EM_OK) {
        fprintf(stderr, "wrap failed: %s\n", em_last_error());
        return 1;
    }
    /* g[:, ::-2]: every other column, reversed.  A view: no data moves. */
    em_index_item idx[] = {{EM_IX_SLICE, 0, INT64_MAX, 1}, {EM_IX_SLICE, INT64_MAX, INT64_MIN, -2}};
    em_status s = em_view_index(&g, 2, idx, &cols);
    if (s == EM_OK) s = em_view_transpose(&cols, NULL, &t); /* (2, 3) */
    const em_array *in[] = {&t, &t};
    if (s == EM_OK) s = em_ufunc(EM_OP_MULTIPLY, 2, in, EM_NDTYPES, &out); /* t * t */
    if (s != EM_OK) {
        fprintf(stderr, "failed: %s\n", em_last_error());
        return 1;
    }
    double res[2][3];
    em_array_read(&out, res, sizeof res);
    int bad = 0;
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 3; j++) {
            double v = grid[j][3 - 2 * i];
            printf("%5g", res[i][j]);
            bad |= res[i][j] != v * v;
        }
        printf("\n");
    }
    /* Asking for a view that needs a copy is a status, not a silent copy. */
    int64_t flat[] = {6};
    em_array r;
    s = em_view_reshape(&t, 1, flat, &r);
    printf("reshape of a transposed view: %s (%s)\n", em_status_name(s), em_last_error());
    em_array_release(&out);
    em_array_release(&g);
    em_array_release(&cols);
    bad |= released != 0; /* t still holds the memory */
    em_array_release(&t);
    return bad || released != 1 || s != EM_EUNSUPPORTED;
}
