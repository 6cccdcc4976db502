/* STREAM triad, a[i] = b[i] + s * c[i] on doubles, with OpenMP.
 *
 * usage: stream_triad N REPEATS     (threads: OMP_NUM_THREADS)
 * prints: gbps <best over repeats> threads <n> mib <MiB per array>
 *
 * Bytes moved per repeat are counted as STREAM does: 3 arrays x N x 8 (the write-allocate read of
 * `a` is not counted). Pick N so each array is several times the last-level cache.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1L << 25;
  int repeats = argc > 2 ? atoi(argv[2]) : 10;
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)),
         *c = malloc(n * sizeof(double));
  if (!a || !b || !c) {
    fprintf(stderr, "stream_triad: cannot allocate 3 x %ld doubles\n", n);
    return 1;
  }
  /* First touch with the same static schedule as the triad: each thread's pages are local. */
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  const double s = 3.0;
  double best = 0;
  for (int r = 0; r < repeats; r++) {
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
      a[i] = b[i] + s * c[i];
    double dt = omp_get_wtime() - t0;
    double gbps = 3.0 * sizeof(double) * (double)n / dt / 1e9;
    if (gbps > best)
      best = gbps;
  }
  /* Checking one element keeps the stores observable. */
  if (a[n / 2] != 7.0) {
    fprintf(stderr, "stream_triad: wrong result %g\n", a[n / 2]);
    return 1;
  }
  printf("gbps %.3f threads %d mib %.1f\n", best, omp_get_max_threads(), n * 8.0 / (1 << 20));
  free(a);
  free(b);
  free(c);
  return 0;
}
