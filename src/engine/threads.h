/* threads.h — one place that decides how many threads seqrep uses.
 *
 * OpenMP threads split the work of every op; OpenBLAS is kept single-threaded
 * and called from inside those threads (its own thread pool fights OpenMP for
 * the cores and is slower on the small matrices of tiny models). */
#ifndef SEQREP_THREADS_H
#define SEQREP_THREADS_H

/* Use n threads (n <= 0: all cores, or OMP_NUM_THREADS when set). */
void threads_set(int n);

/* The number of threads ops will use. */
int threads_count(void);

#endif
