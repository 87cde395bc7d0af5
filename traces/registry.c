/*
 * registry.c - every trace format, in probing order (trace_format_guess keeps
 * the highest confidence; on a tie the earlier one here).
 */
#include <stddef.h>

#include "appio/trace.h"

extern const struct trace_format trace_fmt_appio, trace_fmt_fio, trace_fmt_blkparse,
	trace_fmt_blktrace, trace_fmt_tracefs, trace_fmt_biosnoop, trace_fmt_msr, trace_fmt_spc,
	trace_fmt_alibaba, trace_fmt_tencent;

const struct trace_format *const trace_format_table[] = {
	&trace_fmt_appio,
	&trace_fmt_fio,
	&trace_fmt_blktrace,
	&trace_fmt_blkparse,
	&trace_fmt_tracefs,
	&trace_fmt_biosnoop,
	&trace_fmt_msr,
	&trace_fmt_alibaba,
	&trace_fmt_tencent,
	&trace_fmt_spc,
	NULL,
};
