#ifndef MEMBENCH_DIMM_CHANNELS_H
#define MEMBENCH_DIMM_CHANNELS_H

/* What one SMBIOS locator string names, as boards write them: the socket ("CPU1_DIMM_A1",
 * "P1-DIMMA1", "P0 CHANNEL A", "DIMM_P0_A0", "PROC 1 DIMM 3", "SOCKET 0") and the channel
 * ("DIMM_A1", "P1-DIMMA1", "CPU0_A0", "P0 CHANNEL A", "ChannelB-DIMM0", "Node1_Channel2"). A
 * bare "A1" or "DIMM 3" names neither: boards use its letter for the socket (Dell: A = CPU 1)
 * as often as for the channel. */
struct locator_names {
    int socket;       /* the socket's number as written; -1 when none is named */
    int node;         /* "NODE 1" (a board's word for a socket); -1 when none */
    char channel[16]; /* "A", "0", "Node1 Channel2"; "" when none is named */
};

void locator_parse(const char *text, struct locator_names *out);

#endif
