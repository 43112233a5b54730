/* file_list.h — a comma-separated list of result files (--results a.csv,b.csv
 * of `seqrep plot`, --layers and --exit of `seqrep explore`) split into its
 * paths. */
#ifndef SEQREP_VIZ_FILE_LIST_H
#define SEQREP_VIZ_FILE_LIST_H

/* The most files one option may list. */
#define FILE_LIST_MAX 256

/* Split list at its commas into paths[0..n), n at most max_paths, pointing
 * into a new copy of list (*storage, which the caller frees). Returns n, or
 * -1 when out of memory. */
int file_list_split(const char *list, char **storage, const char **paths, int max_paths);

#endif
