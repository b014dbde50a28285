/* Text that travels into reports: hostnames that are not UTF-8, CSV fields with commas, names
 * with control characters in text output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "src/base/csv_field.h"
#include "src/base/utf8_text.h"

static void escaped(const char *in, size_t cap, const char *want, size_t bad)
{
    char buf[300];
    snprintf(buf, sizeof(buf), "%s", in);
    assert_int_equal(utf8_escape_invalid(buf, cap), bad);
    assert_string_equal(buf, want);
    json_t *j = json_string(buf); /* jansson takes only valid UTF-8 */
    assert_non_null(j);
    json_decref(j);
}

static void invalid_bytes_become_text(void **state)
{
    (void)state;
    escaped("cn042", 256, "cn042", 0);
    escaped("n\xc5\x93ud-\xe3\x83\x8e", 256, "n\xc5\x93ud-\xe3\x83\x8e", 0); /* valid */
    escaped("cn\xff"
            "01",
            256, "cn\\xFF01", 1);
    escaped("a\xc0\xaf", 256, "a\\xC0\\xAF", 2);                 /* overlong '/' */
    escaped("a\xed\xa0\x80", 256, "a\\xED\\xA0\\x80", 3);        /* a surrogate */
    escaped("x\xe3\x83", 256, "x\\xE3\\x83", 2);                 /* cut short */
    escaped("\xf4\x90\x80\x80", 256, "\\xF4\\x90\\x80\\x80", 4); /* beyond U+10FFFF */
    escaped("ab\xff\xff", 8, "ab\\xFF", 2); /* what does not fit is cut whole */
}

static char *csv_of(const char *text, bool always)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    if (always)
        csv_quoted(f, text);
    else
        csv_field(f, text);
    fclose(f);
    return buf;
}

static void csv_quotes_per_rfc4180(void **state)
{
    (void)state;
    static const char *const cases[][3] = {
        {"cn042", "cn042", "\"cn042\""},
        {"cn,1", "\"cn,1\"", "\"cn,1\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\"", "\"say \"\"hi\"\"\""},
        {"two\nlines", "\"two\nlines\"", "\"two\nlines\""},
        {"", "", "\"\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *plain = csv_of(cases[i][0], false), *quoted = csv_of(cases[i][0], true);
        assert_string_equal(plain, cases[i][1]);
        assert_string_equal(quoted, cases[i][2]);
        free(plain);
        free(quoted);
    }
}

static void characters_not_bytes(void **state)
{
    (void)state;
    assert_int_equal(utf8_chars("node"), 4);
    assert_int_equal(utf8_chars("n\xc5\x93ud-\xe3\x83\x8e"), 6);
    assert_int_equal(utf8_chars(""), 0);
}

static void printable(const char *in, size_t cap, const char *want)
{
    char buf[64];
    assert_ptr_equal(text_printable(buf, cap, in), buf);
    assert_string_equal(buf, want);
}

/* Names in text output stay on their line and send no escape to the terminal. */
static void controls_are_escaped(void **state)
{
    (void)state;
    printable("cn042", 64, "cn042");
    printable("n\xc5\x93ud-\xe3\x83\x8e", 64, "n\xc5\x93ud-\xe3\x83\x8e"); /* as it is */
    printable("a\nb\tc\rd", 64, "a\\nb\\tc\\rd");
    printable("red\x1b[31m!\x7f", 64, "red\\x1B[31m!\\x7F");
    printable("\x01\x1f", 64, "\\x01\\x1F");
    printable("csi\xc2\x9b"
              "2J",
              64, "csi\\u009B2J");                 /* C1 CSI */
    printable("nbsp\xc2\xa0", 64, "nbsp\xc2\xa0"); /* U+00A0 is text */
    printable("bad\xff", 64, "bad\\xFF");          /* not UTF-8 */
    printable("a\x1b", 5, "a");                    /* an escape is cut whole */
    printable("ab", 1, "");
    char big[TEXT_PRINTABLE_CAP(8)];
    assert_string_equal(text_printable(big, sizeof(big), "\x1b\x1b\x1b\x1b\x1b\x1b\x1b\x1b"),
                        "\\x1B\\x1B\\x1B\\x1B\\x1B\\x1B\\x1B\\x1B"); /* 4 x n + 1 suffice */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(invalid_bytes_become_text),
        cmocka_unit_test(csv_quotes_per_rfc4180),
        cmocka_unit_test(characters_not_bytes),
        cmocka_unit_test(controls_are_escaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
