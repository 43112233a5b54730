/* fnv1a.h — FNV-1a 64, the one hash behind seqrep's checksums (files,
 * models, training states, gold tags) and its string hash tables. */
#ifndef SEQREP_FNV1A_H
#define SEQREP_FNV1A_H

#include <stddef.h>
#include <stdint.h>

/* The hash of no bytes (FNV-1a's offset basis), where a hash starts. */
extern const uint64_t FNV1A_START;

/* The start of the file and model checksums (runs/manifest file_checksum,
 * formats/adapter base_model_checksum): the offset basis with its last
 * digit dropped (1469598103934665603), as they have been written since the
 * first release; kept so that checksums on record still match. */
extern const uint64_t FNV1A_START_SHORT;

/* Fold n bytes of data into the hash h and return it. */
uint64_t fnv1a(uint64_t h, const void *data, size_t n);

/* The hash of n bytes of data: fnv1a(FNV1A_START, data, n). */
uint64_t fnv1a_bytes(const void *data, size_t n);

#endif
