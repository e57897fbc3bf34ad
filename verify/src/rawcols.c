/* rawcols: see rawcols.h. */
#include "rawcols.h"

const rr_col tester_cols[T_NCOL] = {
    {"j", RR_INT, 0},       {"row", RR_INT, 0},     {"sched_t", RR_TIME, 0}, {"send_t", RR_TIME, 0},
    {"answer_t", RR_TIME, 1}, {"status", RR_INT, 0}, {"kind", RR_CODE, 0},    {"score", RR_FLOAT, 1},
    {"conn", RR_INT, 0},    {"waited", RR_INT, 0},
};

const rr_col service_cols[V_NCOL] = {
    {"req", RR_INT, 1},        {"row", RR_INT, 1},        {"arrive_t", RR_TIME, 0},
    {"answer_t", RR_TIME, 1},  {"status", RR_INT, 0},     {"kind", RR_CODE, 0},
    {"lookups", RR_INT, 0},    {"a0_start_t", RR_TIME, 1}, {"a0_end_t", RR_TIME, 1},
    {"a0_out", RR_CODE, 1},    {"a1_start_t", RR_TIME, 1}, {"a1_end_t", RR_TIME, 1},
    {"a1_out", RR_CODE, 1},    {"a2_start_t", RR_TIME, 1}, {"a2_end_t", RR_TIME, 1},
    {"a2_out", RR_CODE, 1},
};

const rr_col store_cols[S_NCOL] = {
    {"req", RR_INT, 0},        {"attempt", RR_INT, 0},   {"row", RR_INT, 0},
    {"arrive_t", RR_TIME, 0},  {"start_t", RR_TIME, 1},  {"end_t", RR_TIME, 1},
    {"planned_ns", RR_INT, 0}, {"budget_ns", RR_INT, 0}, {"outcome", RR_CODE, 0},
    {"line", RR_INT, 0},       {"busy", RR_INT, 0},
};

const rr_col machine_cols[M_NCOL] = {
    {"t", RR_TIME, 0}, {"scope", RR_CODE, 0}, {"total", RR_INT, 0}, {"idle", RR_INT, 0}, {"steal", RR_INT, 0},
    {"lab", RR_INT, 0},
};
