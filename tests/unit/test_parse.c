/* Size, number and list parsing: every accepted form and every rejection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "src/base/parse.h"

static char why[256];

static struct size_spec must_parse(const char *text)
{
    struct size_spec s;
    int rc = parse_size(text, &s, why, sizeof(why));
    if (rc != 0) fail_msg("parse_size(%s) failed: %s", text, why);
    return s;
}

static void must_reject(const char *text, const char *keyword)
{
    struct size_spec s;
    why[0] = '\0';
    if (parse_size(text, &s, why, sizeof(why)) == 0) fail_msg("parse_size(%s) was accepted", text);
    if (!strstr(why, keyword))
        fail_msg("parse_size(%s): reason '%s' lacks '%s'", text, why, keyword);
}

static void llc_multiples(void **state)
{
    (void)state;
    struct size_spec s = must_parse("4xLLC");
    assert_int_equal(s.kind, SIZE_LLC_MULTIPLE);
    assert_true(s.llc_multiple == 4.0);
    s = must_parse("0.25xllc");
    assert_true(s.llc_multiple == 0.25);
    s = must_parse("7.75XLLC");
    assert_true(s.llc_multiple == 7.75);
}

static void byte_units_decimal_and_binary(void **state)
{
    (void)state;
    assert_int_equal(must_parse("512MB").bytes, 512000000ull);
    assert_int_equal(must_parse("512MiB").bytes, 536870912ull);
    assert_int_equal(must_parse("1.5GiB").bytes, 1610612736ull);
    assert_int_equal(must_parse("2GB").bytes, 2000000000ull);
    assert_int_equal(must_parse("64KiB").bytes, 65536ull);
    assert_int_equal(must_parse("64kB").bytes, 64000ull);
    assert_int_equal(must_parse("4096B").bytes, 4096ull);
    assert_int_equal(must_parse("1TiB").bytes, 1099511627776ull);
    assert_int_equal(must_parse("1.5GiB").kind, SIZE_BYTES);
}

static void element_counts(void **state)
{
    (void)state;
    struct size_spec s = must_parse("20000000");
    assert_int_equal(s.kind, SIZE_ELEMENTS);
    assert_int_equal(s.elements, 20000000ull);
    assert_string_equal(s.text, "20000000");
}

static void rejections(void **state)
{
    (void)state;
    must_reject("", "empty");
    must_reject("0", "zero");
    must_reject("0xLLC", "zero");
    must_reject("0.0GiB", "zero");
    must_reject("-5", "negative");
    must_reject("-1GiB", "negative");
    must_reject("abc", "not a number");
    must_reject("inf", "not a number");
    must_reject("nan", "not a number");
    must_reject(" 5", "not a number");
    must_reject("1.5", "fractional");
    must_reject("10QB", "unknown unit");
    must_reject("4xFOO", "unknown unit");
    must_reject("5 MB", "unknown unit");
    must_reject("99999999999999999999999", "too large");
    must_reject("99999999999TiB", "too large");
    must_reject("0.1B", "less than one byte");
    must_reject("1e9", "unknown unit");
}

static void elements_from_specs(void **state)
{
    (void)state;
    uint64_t n;
    const uint64_t llc = 41943040; /* 2 x 20 MiB: seed 001's node */
    struct size_spec s = must_parse("4xLLC");
    assert_int_equal(size_to_elements(&s, llc, 8, &n, why, sizeof(why)), 0);
    assert_int_equal(n, 20971520ull);
    assert_int_equal(size_to_elements(&s, llc, 4, &n, why, sizeof(why)), 0);
    assert_int_equal(n, 41943040ull);
    s = must_parse("0.03xLLC"); /* rounds up, never below the requested multiple */
    assert_int_equal(size_to_elements(&s, llc, 8, &n, why, sizeof(why)), 0);
    assert_int_equal(n, 157287ull);
    s = must_parse("1GiB");
    assert_int_equal(size_to_elements(&s, 0, 8, &n, why, sizeof(why)), 0);
    assert_int_equal(n, 134217728ull);
    s = must_parse("4B");
    assert_int_not_equal(size_to_elements(&s, llc, 8, &n, why, sizeof(why)), 0);
    assert_non_null(strstr(why, "smaller than one"));
    s = must_parse("2xLLC");
    assert_int_not_equal(size_to_elements(&s, 0, 8, &n, why, sizeof(why)), 0);
    assert_non_null(strstr(why, "unknown"));
    s = must_parse("900000000000000000");
    assert_int_not_equal(size_to_elements(&s, llc, 8, &n, why, sizeof(why)), 0);
    assert_non_null(strstr(why, "too large"));
}

static void unsigned_numbers(void **state)
{
    (void)state;
    uint64_t v;
    assert_int_equal(parse_uint("16", 1, 4096, &v, why, sizeof(why)), 0);
    assert_int_equal(v, 16);
    assert_int_not_equal(parse_uint("0", 1, 4096, &v, why, sizeof(why)), 0);
    assert_int_not_equal(parse_uint("4097", 1, 4096, &v, why, sizeof(why)), 0);
    assert_int_not_equal(parse_uint("-1", 1, 4096, &v, why, sizeof(why)), 0);
    assert_int_not_equal(parse_uint("+1", 1, 4096, &v, why, sizeof(why)), 0);
    assert_int_not_equal(parse_uint("1x", 1, 4096, &v, why, sizeof(why)), 0);
    assert_int_not_equal(parse_uint("", 1, 4096, &v, why, sizeof(why)), 0);
    assert_int_not_equal(parse_uint("99999999999999999999999", 0, UINT64_MAX, &v, why, sizeof(why)),
                         0);
}

struct collected {
    int n;
    char items[8][32];
};

static int collect(const char *item, void *ctx)
{
    struct collected *c = ctx;
    strcpy(c->items[c->n++], item);
    return 0;
}

static void lists(void **state)
{
    (void)state;
    struct collected c = {0};
    assert_int_equal(for_each_list_item("1,2,16", collect, &c, why, sizeof(why)), 0);
    assert_int_equal(c.n, 3);
    assert_string_equal(c.items[2], "16");
    memset(&c, 0, sizeof(c));
    assert_int_equal(for_each_list_item("1,,2", collect, &c, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "empty item"));
    assert_int_equal(for_each_list_item("1,", collect, &c, why, sizeof(why)), -1);
    assert_int_equal(for_each_list_item("", collect, &c, why, sizeof(why)), -1);
}

static void byte_formatting(void **state)
{
    (void)state;
    char buf[32];
    format_bytes(100, buf, sizeof(buf));
    assert_string_equal(buf, "100 B");
    format_bytes(272629760, buf, sizeof(buf));
    assert_string_equal(buf, "260.0 MiB");
    format_bytes(1610612736, buf, sizeof(buf));
    assert_string_equal(buf, "1.5 GiB");
}

/* Text cut short byte-wise loses the incomplete character at its end, nothing more. */
static void utf8_cut_short(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"", ""},
        {"abc", "abc"},
        {"ab\xc3\xa9", "ab\xc3\xa9"},             /* a whole 2-byte character stays */
        {"ab\xc3", "ab"},                         /* half of it goes */
        {"a\xe2\x82\xac", "a\xe2\x82\xac"},       /* whole 3-byte euro sign */
        {"a\xe2\x82", "a"},                       /* two of its three bytes */
        {"a\xe2", "a"},                           /* one of them */
        {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"}, /* whole 4-byte emoji */
        {"x\xf0\x9f\x98", "x"},                   /* three of its four bytes */
        {"\xc3\xa9\xc3", "\xc3\xa9"},             /* only the last character */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[16];
        snprintf(buf, sizeof(buf), "%s", cases[i].in);
        utf8_trim_partial(buf);
        assert_string_equal(buf, cases[i].out);
    }
    /* as used: a 2-byte character across the end of a 4-byte buffer */
    const char *text = "ab\xc3\xa9z"; /* through a variable: gcc warns of the cut otherwise */
    char small[4];
    memcpy(small, text, 3);
    small[3] = '\0';
    utf8_trim_partial(small);
    assert_string_equal(small, "ab");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llc_multiples),
        cmocka_unit_test(byte_units_decimal_and_binary),
        cmocka_unit_test(element_counts),
        cmocka_unit_test(rejections),
        cmocka_unit_test(elements_from_specs),
        cmocka_unit_test(unsigned_numbers),
        cmocka_unit_test(lists),
        cmocka_unit_test(byte_formatting),
        cmocka_unit_test(utf8_cut_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
