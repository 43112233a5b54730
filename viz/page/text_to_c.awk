# text_to_c.awk — a text file as one C string: the page of `seqrep explore
# --html` (page.html) compiled into the binary. The Makefile runs
#
#     awk -v name=page_template -f viz/page/text_to_c.awk viz/page/page.html > page_template.c
#
# Each line becomes a string literal ending in \n; backslashes and double
# quotes are escaped, nothing else changes (the file is ASCII and UTF-8 text).
BEGIN { print "/* generated from viz/page/page.html by viz/page/text_to_c.awk: do not edit */"
        print "const char " name "[] =" }
{
    line = $0
    gsub(/\\/, "&&", line)
    gsub(/"/, "\\\"", line)
    gsub(/\t/, "\\t", line)
    print "    \"" line "\\n\""
}
END { print "    \"\";" }
