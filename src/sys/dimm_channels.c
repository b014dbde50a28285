#include "src/sys/dimm_channels.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKENS_MAX 12

/* Upper-case words of text, split at blanks, '_', '-', '/' and '.'. Returns their count. */
static int tokens_of(const char *text, char tok[][24])
{
    int n = 0;
    size_t k = 0;
    for (const char *p = text;; p++) {
        bool sep = !*p || strchr(" _-/.:", *p);
        if (sep && k) {
            tok[n++][k] = '\0';
            k = 0;
            if (n == TOKENS_MAX) break;
        }
        if (!*p) break;
        if (!sep && k + 1 < 24) tok[n][k++] = (char)toupper((unsigned char)*p);
    }
    return n;
}

static bool all_digits(const char *s)
{
    if (!*s || strlen(s) > 3) return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return false;
    return true;
}

/* prefix followed by a number in the same word ("CPU1") or the next ("PROC 1"). */
static int numbered(char tok[][24], int n, int i, const char *prefix, bool next_allowed)
{
    size_t len = strlen(prefix);
    if (strncmp(tok[i], prefix, len) != 0) return -1;
    if (all_digits(tok[i] + len)) return atoi(tok[i] + len);
    if (next_allowed && !tok[i][len] && i + 1 < n && all_digits(tok[i + 1]))
        return atoi(tok[i + 1]);
    return -1;
}

/* "A1", "B2", "AB1": a channel letter (one or two) and a slot number. */
static bool letter_slot(const char *t, char *channel, size_t cap)
{
    size_t letters = 0;
    while (isupper((unsigned char)t[letters]))
        letters++;
    if (letters < 1 || letters > 2 || !all_digits(t + letters)) return false;
    snprintf(channel, cap, "%.*s", (int)letters, t);
    return true;
}

static int socket_word(char tok[][24], int n, int i)
{
    static const char *const words[] = {"CPU", "PROC", "SOCKET", "P"};
    for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
        int s = numbered(tok, n, i, words[w], w != 3);
        if (s >= 0) return s;
    }
    return -1;
}

static void channel_word(char tok[][24], int n, int i, int node, struct locator_names *out)
{
    char ch[8] = "";
    if (!strncmp(tok[i], "CHANNEL", 7) && tok[i][7] && strlen(tok[i] + 7) <= 2)
        snprintf(ch, sizeof(ch), "%s", tok[i] + 7);
    else if (!strcmp(tok[i], "CHANNEL") && i + 1 < n && strlen(tok[i + 1]) <= 2)
        snprintf(ch, sizeof(ch), "%s", tok[i + 1]);
    else if (!strncmp(tok[i], "DIMM", 4) && letter_slot(tok[i] + 4, ch, sizeof(ch)))
        ;
    else if (!strcmp(tok[i], "DIMM") && i + 1 < n && socket_word(tok, n, i + 1) < 0 &&
             letter_slot(tok[i + 1], ch, sizeof(ch)))
        ;
    else
        return;
    if (node >= 0 && isdigit((unsigned char)ch[0]))
        snprintf(out->channel, sizeof(out->channel), "Node%d Channel%.2s", node % 10, ch);
    else
        snprintf(out->channel, sizeof(out->channel), "%s", ch);
}

void locator_parse(const char *text, struct locator_names *out)
{
    char tok[TOKENS_MAX][24];
    int n = tokens_of(text ? text : "", tok);
    out->socket = out->node = -1;
    out->channel[0] = '\0';
    int node = -1; /* "Node1", or a node after the socket: the socket's memory controller */
    for (int i = 0; i < n; i++) {
        int s = socket_word(tok, n, i);
        if (s >= 0 && out->socket < 0 && !out->channel[0]) {
            out->socket = s;
            if (i + 1 < n && !out->channel[0] && letter_slot(tok[i + 1], out->channel, 3)) i++;
            continue;
        }
        int nd = numbered(tok, n, i, "NODE", true);
        if (nd >= 0) {
            if (out->socket < 0 && !strcmp(tok[i], "NODE"))
                out->node = nd; /* "NODE 1" alone: the board's word for a socket */
            else
                node = nd;
            continue;
        }
        if (!out->channel[0]) channel_word(tok, n, i, node, out);
    }
}
