/* Scans over a backend's primitives: the choice of form (run_scan.c
 * explains the forms). */
#ifndef EM_RUN_SCAN_H
#define EM_RUN_SCAN_H

#include "codegen/run.h"

#include <stdbool.h>

typedef struct em_scan_plan {
    char mode;           /* 'L' one thread per line, 'T' tiles, 'H' on the host */
    int64_t nlines, len; /* lines and their length (>= 1 each) */
    int64_t ntiles;      /* tiles per line ('T' only, else 1) */
} em_scan_plan;

/* The form for nlines lines of len elements with out's dtype on a device
 * of sms multiprocessors; interleaved: neighbouring lines are closer in
 * memory than a line's neighbouring elements (one thread per line then
 * reads coalesced). */
EM_API em_scan_plan em_run_scan_choose(int64_t nlines, int64_t len, bool interleaved, em_dtype out,
                                       int sms);

#endif
