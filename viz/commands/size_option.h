/* size_option.h — the --size value of both commands: "WIDTHxHEIGHT" (or
 * "WIDTHXHEIGHT"), two integers; each command checks the range it takes. */
#ifndef SEQREP_VIZ_SIZE_OPTION_H
#define SEQREP_VIZ_SIZE_OPTION_H

/* Split text at its 'x' into the two integers *w and *h; 0, or -1 when it
 * is not two integers joined by one 'x'. */
int size_option_parse(const char *text, long *w, long *h);

#endif
