/* rawcols: see rawcols.h. */
#include "rawcols.h"

const rr_col tester_cols[TW_NCOL] = {
    {"send_us", RR_OFFSET, 1, NULL, 0}, {"answer_us", RR_OFFSET, 1, NULL, 0}, {"status", RR_INT, 0, NULL, 0},
    {"kind", RR_CODE, 0, RC_KINDS, 0},  {"score", RR_FLOAT, 1, NULL, 1},      {"conn", RR_INT, 1, NULL, 0},
    {"waited", RR_INT, 0, NULL, 0},
};

#define LOOKUP(k)                                                                                              \
    {"a" #k "_start_us", RR_OFFSET, 1, NULL, 0}, {"a" #k "_end_us", RR_OFFSET, 1, NULL, 0},                    \
    {"a" #k "_out", RR_CODE, 1, RC_LOOKUP_OUTS, 0}

const rr_col service_cols[VW_NCOL] = {
    {"req", RR_INT, 1, NULL, 0},   {"arrive_us", RR_OFFSET, 0, NULL, 0}, {"answer_us", RR_OFFSET, 1, NULL, 0},
    {"status", RR_INT, 0, NULL, 0}, {"kind", RR_CODE, 0, RC_KINDS, 0},     {"lookups", RR_INT, 0, NULL, 0},
    {"store", RR_INT, 0, NULL, 0},  LOOKUP(0), LOOKUP(1), LOOKUP(2), LOOKUP(3), LOOKUP(4),
};

const rr_col store_cols[SW_NCOL] = {
    {"req", RR_INT, 0, NULL, 0},          {"attempt", RR_INT, 0, NULL, 0},   {"arrive_us", RR_OFFSET, 0, NULL, 0},
    {"start_us", RR_OFFSET, 1, NULL, 0},  {"end_us", RR_OFFSET, 1, NULL, 0}, {"budget_ns", RR_INT, 0, NULL, 0},
    {"outcome", RR_CODE, 0, RC_STORE_OUTCOMES, 0}, {"line", RR_INT, 0, NULL, 0}, {"busy", RR_INT, 0, NULL, 0},
};

const rr_col events_cols[E_NCOL] = {
    {"t", RR_TIME, 0, NULL, 0},     {"what", RR_CODE, 0, RC_EVENTS, 0}, {"conn", RR_INT, 0, NULL, 0},
    {"tries", RR_INT, 0, NULL, 0},  {"wait_ns", RR_INT, 0, NULL, 0},
};

const rr_col machine_cols[M_NCOL] = {
    {"t", RR_TIME, 0, NULL, 0},     {"scope", RR_CODE, 0, RC_SCOPES, 0}, {"total", RR_INT, 0, NULL, 0},
    {"idle", RR_INT, 0, NULL, 0},   {"steal", RR_INT, 0, NULL, 0},       {"lab", RR_INT, 0, NULL, 0},
};

const char *const tester_dec_names[T_NCOL] = {"j", "row", "sched_t", "send_t", "answer_t",
                                              "status", "kind", "score", "conn", "waited"};

const char *const service_dec_names[V_NCOL] = {
    "req",        "row",      "arrive_t",   "answer_t",   "status",   "kind",       "lookups",  "store",
    "a0_start_t", "a0_end_t", "a0_out",     "a1_start_t", "a1_end_t", "a1_out",     "a2_start_t", "a2_end_t",
    "a2_out",     "a3_start_t", "a3_end_t", "a3_out",     "a4_start_t", "a4_end_t", "a4_out"};

const char *const store_dec_names[S_NCOL] = {"req",        "attempt",   "row",     "arrive_t", "start_t", "end_t",
                                             "planned_ns", "budget_ns", "outcome", "line",     "busy"};
