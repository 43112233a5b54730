/* page_template.h — the page of `seqrep explore --html`: viz/page/page.html
 * (its HTML, CSS and JavaScript), compiled into the binary as one string by
 * the Makefile (viz/page/text_to_c.awk). The page's data goes where the
 * template holds PAGE_DATA_MARK (page_write.h). */
#ifndef SEQREP_VIZ_PAGE_TEMPLATE_H
#define SEQREP_VIZ_PAGE_TEMPLATE_H

/* Where the data goes: the one occurrence of this text in the template. */
#define PAGE_DATA_MARK "/*PAGE_DATA*/null"

extern const char page_template[];

#endif
