/* SPDX-License-Identifier: MIT */
/*
 * table_entry.h — the steps every entry of the GPA 3.x and 4.x function
 * tables is written in (gpa3.c, gpa4.c; nothing else includes it): take
 * the lock, check, leave; look a handle up.  Each front end strings them
 * together in its own version's order.  They expand in the entry itself,
 * so that __func__ names the entry point the client called.
 *
 * Include it after the version's own header: the enum values asserted and
 * GpaStatus are that header's.
 */
#ifndef OPENGPA_API_TABLE_ENTRY_H
#define OPENGPA_API_TABLE_ENTRY_H

#include "api/table.h"

/* table.h's OT_ values against the including version's header; `ver`
 * ("GPA 4.3") names the version in the messages. */
#define OT_ASSERT_VERSION_VALUES(ver) \
	_Static_assert(OT_OK == (int)kGpaStatusOk && \
	               OT_RESULT_NOT_READY == (int)kGpaStatusResultNotReady && \
	               OT_NULL_POINTER == (int)kGpaStatusErrorNullPointer && \
	               OT_COMMAND_LIST_NOT_FOUND == (int)kGpaStatusErrorCommandListNotFound && \
	               OT_INVALID_PARAMETER == (int)kGpaStatusErrorInvalidParameter && \
	               OT_GPA_NOT_INITIALIZED == (int)kGpaStatusErrorGpaNotInitialized && \
	               OT_SESSION_NOT_ENDED == (int)kGpaStatusErrorSessionNotEnded && \
	               OT_OTHER_SESSION_ACTIVE == (int)kGpaStatusErrorOtherSessionActive && \
	               OT_STATUS_MIN == (int)kGpaStatusMin, ver " status values"); \
	_Static_assert(OT_DATA_TYPE_FLOAT64 == (int)kGpaDataTypeFloat64 && \
	               OT_DATA_TYPE_UINT64 == (int)kGpaDataTypeUint64, ver " data types"); \
	_Static_assert(OT_USAGE_NANOSECONDS == (int)kGpaUsageTypeNanoseconds, ver " usage types"); \
	_Static_assert(OT_COMMAND_LIST_NONE == (int)kGpaCommandListNone && \
	               OT_COMMAND_LIST_LAST == (int)kGpaCommandListLast, \
	               ver " command list types"); \
	_Static_assert(sizeof(GpaDataType) == sizeof(int) && sizeof(GpaUsageType) == sizeof(int) && \
	               sizeof(GpaCounterSampleType) == sizeof(int), "enums are int-sized")

#define ENTER() ot_lock()
#define RETURN(st) return (GpaStatus)ot_leave(st)
/* Leaves with expr's status unless it is OT_OK. */
#define CHECK(expr) \
	do { \
		int st_ = (expr); \
		if (st_ != OT_OK) \
			RETURN(st_); \
	} while (0)
#define NOT_NULL(p) CHECK((p) ? OT_OK : ot_null(__func__, #p))

/* Declares `var`, the object handle `id` names, or leaves with what
 * look_up (ot_context, ot_session, ot_command_list) says is wrong. */
#define HANDLE_OF(type, var, look_up, id) \
	type *var; \
	CHECK(look_up(__func__, id, &var))
#define CONTEXT_OF(ctx, id) HANDLE_OF(struct og_context, ctx, ot_context, id)
#define SESSION_OF(x, id) HANDLE_OF(struct og_xsession, x, ot_session, id)

#endif
