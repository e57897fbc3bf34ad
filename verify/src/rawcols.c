/* rawcols: see rawcols.h. */
#include "rawcols.h"

const rr_col tester_cols[T_NCOL] = {
    {"j", RR_INT, 0, NULL},         {"row", RR_INT, 0, NULL},    {"sched_t", RR_TIME, 0, NULL},
    {"send_t", RR_TIME, 1, NULL},   {"answer_t", RR_TIME, 1, NULL}, {"status", RR_INT, 0, NULL},
    {"kind", RR_CODE, 0, RC_KINDS}, {"score", RR_FLOAT, 1, NULL}, {"conn", RR_INT, 1, NULL},
    {"waited", RR_INT, 0, NULL},
};

const rr_col service_cols[V_NCOL] = {
    {"req", RR_INT, 1, NULL},        {"row", RR_INT, 1, NULL},        {"arrive_t", RR_TIME, 0, NULL},
    {"answer_t", RR_TIME, 1, NULL},  {"status", RR_INT, 0, NULL},     {"kind", RR_CODE, 0, RC_KINDS},
    {"lookups", RR_INT, 0, NULL},    {"store", RR_INT, 0, NULL},
    {"a0_start_t", RR_TIME, 1, NULL}, {"a0_end_t", RR_TIME, 1, NULL}, {"a0_out", RR_CODE, 1, RC_LOOKUP_OUTS},
    {"a1_start_t", RR_TIME, 1, NULL}, {"a1_end_t", RR_TIME, 1, NULL}, {"a1_out", RR_CODE, 1, RC_LOOKUP_OUTS},
    {"a2_start_t", RR_TIME, 1, NULL}, {"a2_end_t", RR_TIME, 1, NULL}, {"a2_out", RR_CODE, 1, RC_LOOKUP_OUTS},
    {"a3_start_t", RR_TIME, 1, NULL}, {"a3_end_t", RR_TIME, 1, NULL}, {"a3_out", RR_CODE, 1, RC_LOOKUP_OUTS},
    {"a4_start_t", RR_TIME, 1, NULL}, {"a4_end_t", RR_TIME, 1, NULL}, {"a4_out", RR_CODE, 1, RC_LOOKUP_OUTS},
};

const rr_col store_cols[S_NCOL] = {
    {"req", RR_INT, 0, NULL},        {"attempt", RR_INT, 0, NULL},   {"row", RR_INT, 0, NULL},
    {"arrive_t", RR_TIME, 0, NULL},  {"start_t", RR_TIME, 1, NULL},  {"end_t", RR_TIME, 1, NULL},
    {"planned_ns", RR_INT, 0, NULL}, {"budget_ns", RR_INT, 0, NULL}, {"outcome", RR_CODE, 0, RC_STORE_OUTCOMES},
    {"line", RR_INT, 0, NULL},       {"busy", RR_INT, 0, NULL},
};

const rr_col events_cols[E_NCOL] = {
    {"t", RR_TIME, 0, NULL}, {"what", RR_CODE, 0, RC_EVENTS}, {"conn", RR_INT, 0, NULL},
    {"tries", RR_INT, 0, NULL}, {"wait_ns", RR_INT, 0, NULL},
};

const rr_col machine_cols[M_NCOL] = {
    {"t", RR_TIME, 0, NULL},   {"scope", RR_CODE, 0, RC_SCOPES}, {"total", RR_INT, 0, NULL},
    {"idle", RR_INT, 0, NULL}, {"steal", RR_INT, 0, NULL},       {"lab", RR_INT, 0, NULL},
};
