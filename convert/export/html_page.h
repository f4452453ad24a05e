/* export/html_page.h - the fixed parts of the HTML export's page: markup,
 * style sheet and script, around the profile's JSON data. */
#ifndef INCLPROF_EXPORT_HTML_PAGE_H
#define INCLPROF_EXPORT_HTML_PAGE_H

#include <stdio.h>

/* Everything before the data: a <script type="application/json"> element
 * is left open for it.  title is HTML-escaped. */
void ip_html_page_head(FILE *out, const char *title);
/* Closes the data element, then the page's script and the page. */
void ip_html_page_tail(FILE *out);

#endif
