/* explorer_worker.h — the explorer's background recompute of the attention
 * maps when the sentence or r changes: a worker thread with the model loaded
 * once (explorer_worker.c). */
#ifndef SEQREP_VIZ_EXPLORER_WORKER_H
#define SEQREP_VIZ_EXPLORER_WORKER_H

#include "attention/attention_data.h"
#include "base/status.h"
#include "repeat/repeat.h"
#include "text/tokenizer.h"

typedef struct ExplorerWorker ExplorerWorker;

/* Load the model once (for inputs up to min(max_T, its max_seq_len) tokens;
 * with the LoRA adapters of adapter_path merged in, NULL = none) and start
 * the worker thread. tok (the checkpoint's vocabulary, shared and
 * read-only) labels the tokens; mask_plan NULL = causal. notify(notify_arg)
 * is called from the worker thread after each result (e.g. to wake the
 * window's event loop). 0 or -1. */
int explorer_worker_start(ExplorerWorker **w, const char *model_path, const char *adapter_path,
                          const Tokenizer *tok,
                          const char *mask_plan, RepeatBos bos, RepeatSep sep,
                          RepeatPositions copy_positions, int max_T, int n_threads,
                          void (*notify)(void *), void *notify_arg, SrError *err);

/* Longest input the loaded model accepts. */
int explorer_worker_max_T(const ExplorerWorker *w);

/* Ask for the maps of sentence ids[0..n) repeated r times (copied); a
 * request still waiting is replaced. 0 or -1 (out of memory). */
int explorer_worker_request(ExplorerWorker *w, const int *ids, int n, int sentence, int r);

/* 1 while a request waits or runs. */
int explorer_worker_pending(ExplorerWorker *w);

/* Take the newest finished result: 1 and *d (now the caller's), *sentence
 * and *r it was computed for; -1 with err when that run failed; 0 if none. */
int explorer_worker_take(ExplorerWorker *w, AttentionData *d, int *sentence, int *r, SrError *err);

/* Stop the thread (after the run in progress) and free everything: the
 * weights too, so every result taken (whose maps are computed on demand from
 * them) must be freed first. */
void explorer_worker_stop(ExplorerWorker *w);

#endif
