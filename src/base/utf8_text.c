#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/utf8_text.h"

/* Bytes of the well-formed UTF-8 sequence starting at s (1 to 4), or 0 when there is none:
 * no overlong forms, surrogates or code points beyond U+10FFFF. */
static size_t sequence_length(const unsigned char *s)
{
    unsigned c = s[0], min;
    size_t n;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, min = 0x10000;
    else
        return 0;
    unsigned cp = c & (0x7Fu >> n);
    for (size_t i = 1; i < n; i++) { /* stops at the terminator: it is no continuation byte */
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

size_t utf8_escape_invalid(char *s, size_t cap)
{
    size_t bad = 0, len = strlen(s);
    for (size_t i = 0; i < len;) {
        size_t n = sequence_length((const unsigned char *)s + i);
        bad += n == 0;
        i += n ? n : 1;
    }
    if (bad == 0 || cap == 0) return 0;
    char *out = malloc(cap);
    if (!out) { /* no room to rewrite: a '?' keeps the text valid */
        for (size_t i = 0; i < len;) {
            size_t n = sequence_length((const unsigned char *)s + i);
            if (n == 0) s[i] = '?';
            i += n ? n : 1;
        }
        return bad;
    }
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = sequence_length((const unsigned char *)s + i);
        size_t need = n ? n : 4;
        if (o + need >= cap) break;
        if (n)
            memcpy(out + o, s + i, n);
        else
            snprintf(out + o, 5, "\\x%02X", (unsigned char)s[i]);
        o += need;
        i += n ? n : 1;
    }
    out[o] = '\0';
    memcpy(s, out, o + 1);
    free(out);
    return bad;
}

/* The escape that stands for the character of n bytes at s (n 0: a byte that is not UTF-8),
 * or NULL when it is shown as it is. */
static const char *escape_of(const unsigned char *s, size_t n, char buf[8])
{
    if (n == 0 || (n == 1 && (s[0] < 0x20 || s[0] == 0x7F))) {
        if (s[0] == '\n') return "\\n";
        if (s[0] == '\t') return "\\t";
        if (s[0] == '\r') return "\\r";
        snprintf(buf, 8, "\\x%02X", s[0]);
        return buf;
    }
    if (n == 2 && s[0] == 0xC2 && s[1] < 0xA0) { /* U+0080 to U+009F */
        snprintf(buf, 8, "\\u%04X", s[1]);
        return buf;
    }
    return NULL;
}

char *text_printable(char *dst, size_t cap, const char *src)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t o = 0;
    if (cap == 0) return dst;
    for (size_t i = 0; s[i];) {
        size_t n = sequence_length(s + i);
        char buf[8];
        const char *esc = escape_of(s + i, n, buf);
        size_t len = esc ? strlen(esc) : n;
        if (o + len >= cap) break;
        memcpy(dst + o, esc ? esc : src + i, len);
        o += len;
        i += n ? n : 1;
    }
    dst[o] = '\0';
    return dst;
}

size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

char *text_squeeze_blanks(char *s)
{
    char *out = s;
    bool blank = false;
    for (const char *in = s; *in; in++) {
        if (*in == ' ' || *in == '\t') {
            blank = out != s;
            continue;
        }
        if (blank) *out++ = ' ';
        blank = false;
        *out++ = *in;
    }
    *out = '\0';
    return s;
}
