/* page_write.h — writing the one self-contained HTML file of `seqrep explore
 * --html` (page_write.c): the template of page_template.h with the page's
 * data, a JSON object, in place of its mark. Knows no figure and no
 * explorer: the images come as PNG bytes, already drawn. */
#ifndef SEQREP_VIZ_PAGE_WRITE_H
#define SEQREP_VIZ_PAGE_WRITE_H

#include <stddef.h>

#include <cJSON.h>

#include "base/status.h"

/* A data: URI of png[0..n) ("data:image/png;base64,..."), new (the caller
 * frees it), or NULL when out of memory. */
char *page_png_uri(const unsigned char *png, size_t n);

/* The page as one string: the template with data, printed as JSON, in
 * place of the mark ("</" written "<\/" so no text in it ends the script
 * block). New (the caller frees it), or NULL with err. */
char *page_html(const cJSON *data, SrError *err);

/* Write the page of data to path (atomically: a temporary renamed into
 * place). 0, or -1 with err naming the file. */
int page_write(const char *path, const cJSON *data, SrError *err);

#endif
