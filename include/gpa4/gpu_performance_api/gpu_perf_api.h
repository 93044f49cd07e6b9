/* SPDX-License-Identifier: MIT */
/*
 * gpu_perf_api.h — the GPA 4.3 API as opengpa implements it: the entry
 * points, and GpaFunctionTable, which GpaGetFuncTable fills for a caller
 * that sets major_version to 4 and minor_version to the size of its
 * table (GPA_FUNCTION_TABLE_MINOR_VERSION_NUMBER).  docs/api-gpa3.md has
 * opengpa's behaviour.
 */
#ifndef GPU_PERFORMANCE_API_GPU_PERF_API_H_
#define GPU_PERFORMANCE_API_GPU_PERF_API_H_

#include "gpu_perf_api_function_types.h"
#include "gpu_perf_api_types.h"

GPA_LIB_DECL GpaStatus GpaGetFuncTable(void* gpa_func_table);
GPA_LIB_DECL GpaStatus GpaRegisterLoggingCallback(GpaLoggingType logging_type, GpaLoggingCallbackPtrType callback_func_ptr);
GPA_LIB_DECL GpaStatus GpaInitialize(GpaInitializeFlags gpa_initialize_flags);
GPA_LIB_DECL GpaStatus GpaDestroy(void);
GPA_LIB_DECL GpaStatus GpaOpenContext(void* api_context, GpaOpenContextFlags gpa_open_context_flags, GpaContextId* gpa_context_id);
GPA_LIB_DECL GpaStatus GpaCloseContext(GpaContextId gpa_context_id);
GPA_LIB_DECL GpaStatus GpaGetSupportedSampleTypes(GpaContextId gpa_context_id, GpaContextSampleTypeFlags* sample_types);
GPA_LIB_DECL GpaStatus GpaGetDeviceAndRevisionId(GpaContextId gpa_context_id, GpaUInt32* device_id, GpaUInt32* revision_id);
GPA_LIB_DECL GpaStatus GpaGetDeviceName(GpaContextId gpa_context_id, const char** device_name);
GPA_LIB_DECL GpaStatus GpaUpdateDeviceInformation(GpaContextId gpa_context_id, GpaUInt32 num_shader_engines, GpaUInt32 num_compute_units, GpaUInt32 num_simds, GpaUInt32 num_waves_per_simd);
GPA_LIB_DECL GpaStatus GpaGetNumCounters(GpaSessionId gpa_session_id, GpaUInt32* number_of_counters);
GPA_LIB_DECL GpaStatus GpaGetCounterName(GpaSessionId gpa_session_id, GpaUInt32 index, const char** counter_name);
GPA_LIB_DECL GpaStatus GpaGetCounterIndex(GpaSessionId gpa_session_id, const char* counter_name, GpaUInt32* counter_index);
GPA_LIB_DECL GpaStatus GpaGetCounterGroup(GpaSessionId gpa_session_id, GpaUInt32 index, const char** counter_group);
GPA_LIB_DECL GpaStatus GpaGetCounterDescription(GpaSessionId gpa_session_id, GpaUInt32 index, const char** counter_description);
GPA_LIB_DECL GpaStatus GpaGetCounterDataType(GpaSessionId gpa_session_id, GpaUInt32 index, GpaDataType* counter_data_type);
GPA_LIB_DECL GpaStatus GpaGetCounterUsageType(GpaSessionId gpa_session_id, GpaUInt32 index, GpaUsageType* counter_usage_type);
GPA_LIB_DECL GpaStatus GpaGetCounterUuid(GpaSessionId gpa_session_id, GpaUInt32 index, GpaUuid* counter_uuid);
GPA_LIB_DECL GpaStatus GpaGetCounterSampleType(GpaSessionId gpa_session_id, GpaUInt32 index, GpaCounterSampleType* counter_sample_type);
GPA_LIB_DECL GpaStatus GpaGetDataTypeAsStr(GpaDataType counter_data_type, const char** type_as_str);
GPA_LIB_DECL GpaStatus GpaGetUsageTypeAsStr(GpaUsageType counter_usage_type, const char** usage_type_as_str);
GPA_LIB_DECL GpaStatus GpaCreateSession(GpaContextId gpa_context_id, GpaSessionSampleType gpa_session_sample_type, GpaSessionId* gpa_session_id);
GPA_LIB_DECL GpaStatus GpaDeleteSession(GpaSessionId gpa_session_id);
GPA_LIB_DECL GpaStatus GpaBeginSession(GpaSessionId gpa_session_id);
GPA_LIB_DECL GpaStatus GpaEndSession(GpaSessionId gpa_session_id);
GPA_LIB_DECL GpaStatus GpaResetSession(GpaSessionId gpa_session_id);
GPA_LIB_DECL GpaStatus GpaAbortSession(GpaSessionId gpa_session_id);
GPA_LIB_DECL GpaStatus GpaSqttGetInstructionMask(GpaSessionId gpa_session_id, GpaSqttInstructionFlags* sqtt_instruction_mask);
GPA_LIB_DECL GpaStatus GpaSqttSetInstructionMask(GpaSessionId gpa_session_id, GpaSqttInstructionFlags sqtt_instruction_mask);
GPA_LIB_DECL GpaStatus GpaSqttGetComputeUnitId(GpaSessionId gpa_session_id, GpaUInt32* sqtt_compute_unit_id);
GPA_LIB_DECL GpaStatus GpaSqttSetComputeUnitId(GpaSessionId gpa_session_id, GpaUInt32 sqtt_compute_unit_id);
GPA_LIB_DECL GpaStatus GpaSqttBegin(GpaSessionId gpa_session_id, void* command_list);
GPA_LIB_DECL GpaStatus GpaSqttEnd(GpaSessionId gpa_session_id, void* command_list);
GPA_LIB_DECL GpaStatus GpaSqttGetSampleResultSize(GpaSessionId gpa_session_id, size_t* sample_result_size_in_bytes);
GPA_LIB_DECL GpaStatus GpaSqttGetSampleResult(GpaSessionId gpa_session_id, size_t sample_result_size_in_bytes, void* sqtt_results);
GPA_LIB_DECL GpaStatus GpaSpmSetSampleInterval(GpaSessionId gpa_session_id, GpaUInt32 interval);
GPA_LIB_DECL GpaStatus GpaSpmSetDuration(GpaSessionId gpa_session_id, GpaUInt32 nanosecond_duration);
GPA_LIB_DECL GpaStatus GpaSpmBegin(GpaSessionId gpa_session_id, void* command_list);
GPA_LIB_DECL GpaStatus GpaSpmEnd(GpaSessionId gpa_session_id, void* command_list);
GPA_LIB_DECL GpaStatus GpaSpmGetSampleResultSize(GpaSessionId gpa_session_id, size_t* sample_result_size_in_bytes);
GPA_LIB_DECL GpaStatus GpaSpmGetSampleResult(GpaSessionId gpa_session_id, size_t sample_result_size_in_bytes, void* spm_results);
GPA_LIB_DECL GpaStatus GpaSpmCalculateDerivedCounters(GpaSessionId gpa_session_id, GpaSpmData* spm_data, GpaUInt32 derived_counter_count, GpaUInt64* derived_counter_results);
GPA_LIB_DECL GpaStatus GpaEnableCounter(GpaSessionId gpa_session_id, GpaUInt32 counter_index);
GPA_LIB_DECL GpaStatus GpaDisableCounter(GpaSessionId gpa_session_id, GpaUInt32 counter_index);
GPA_LIB_DECL GpaStatus GpaEnableCounterByName(GpaSessionId gpa_session_id, const char* counter_name);
GPA_LIB_DECL GpaStatus GpaDisableCounterByName(GpaSessionId gpa_session_id, const char* counter_name);
GPA_LIB_DECL GpaStatus GpaEnableAllCounters(GpaSessionId gpa_session_id);
GPA_LIB_DECL GpaStatus GpaDisableAllCounters(GpaSessionId gpa_session_id);
GPA_LIB_DECL GpaStatus GpaGetPassCount(GpaSessionId gpa_session_id, GpaUInt32* number_of_passes);
GPA_LIB_DECL GpaStatus GpaGetNumEnabledCounters(GpaSessionId gpa_session_id, GpaUInt32* counter_count);
GPA_LIB_DECL GpaStatus GpaGetEnabledIndex(GpaSessionId gpa_session_id, GpaUInt32 enabled_number, GpaUInt32* enabled_counter_index);
GPA_LIB_DECL GpaStatus GpaIsCounterEnabled(GpaSessionId gpa_session_id, GpaUInt32 counter_index);
GPA_LIB_DECL GpaStatus GpaBeginCommandList(GpaSessionId gpa_session_id, GpaUInt32 pass_index, void* command_list, GpaCommandListType command_list_type, GpaCommandListId* gpa_command_list_id);
GPA_LIB_DECL GpaStatus GpaEndCommandList(GpaCommandListId gpa_command_list_id);
GPA_LIB_DECL GpaStatus GpaBeginSample(GpaUInt32 sample_id, GpaCommandListId gpa_command_list_id);
GPA_LIB_DECL GpaStatus GpaEndSample(GpaCommandListId gpa_command_list_id);
GPA_LIB_DECL GpaStatus GpaContinueSampleOnCommandList(GpaUInt32 source_sample_id, GpaCommandListId primary_gpa_command_list_id);
GPA_LIB_DECL GpaStatus GpaCopySecondarySamples(GpaCommandListId secondary_gpa_command_list_id, GpaCommandListId primary_gpa_command_list_id, GpaUInt32 number_of_samples, GpaUInt32* new_sample_ids);
GPA_LIB_DECL GpaStatus GpaGetSampleCount(GpaSessionId gpa_session_id, GpaUInt32* sample_count);
GPA_LIB_DECL GpaStatus GpaIsPassComplete(GpaSessionId gpa_session_id, GpaUInt32 pass_index);
GPA_LIB_DECL GpaStatus GpaIsSessionComplete(GpaSessionId gpa_session_id);
GPA_LIB_DECL GpaStatus GpaGetSampleResultSize(GpaSessionId gpa_session_id, GpaUInt32 sample_id, size_t* sample_result_size_in_bytes);
GPA_LIB_DECL GpaStatus GpaGetSampleResult(GpaSessionId gpa_session_id, GpaUInt32 sample_id, size_t sample_result_size_in_bytes, void* counter_sample_results);
GPA_LIB_DECL const char* GpaGetStatusAsStr(GpaStatus status);
GPA_LIB_DECL GpaStatus GpaGetSampleId(GpaSessionId gpa_session_id, GpaUInt32 index, GpaUInt32* sample_id);
GPA_LIB_DECL GpaStatus GpaGetVersion(GpaUInt32* major_version, GpaUInt32* minor_version, GpaUInt32* build_number, GpaUInt32* update_version);
GPA_LIB_DECL GpaStatus GpaGetDeviceGeneration(GpaContextId gpa_context_id, GpaHwGeneration* hardware_generation);
GPA_LIB_DECL GpaStatus GpaGetDeviceMaxWaveSlots(GpaContextId gpa_context_id, GpaUInt32* max_wave_slots);
GPA_LIB_DECL GpaStatus GpaSqttSpmBegin(GpaSessionId gpa_session_id, void* command_list);
GPA_LIB_DECL GpaStatus GpaSqttSpmEnd(GpaSessionId gpa_session_id, void* command_list);
GPA_LIB_DECL GpaStatus GpaGetDeviceMaxVgprs(GpaContextId gpa_context_id, GpaUInt32* max_vgprs);
GPA_LIB_DECL GpaStatus GpaGetDeviceMaxLdsBytes(GpaContextId gpa_context_id, GpaUInt32* max_lds_bytes);

typedef struct _GpaFunctionTable {
	GpaUInt32 major_version;
	GpaUInt32 minor_version;
#define GPA_FUNCTION_PREFIX(func) func##PtrType func;
#include "gpu_perf_api_functions.h"
#undef GPA_FUNCTION_PREFIX
#ifdef __cplusplus
	/* As GPA's: the version fields set, every entry NULL. */
	_GpaFunctionTable()
	{
		major_version = 4;
		minor_version = sizeof(struct _GpaFunctionTable);
#define GPA_FUNCTION_PREFIX(func) func = nullptr;
#include "gpu_perf_api_functions.h"
#undef GPA_FUNCTION_PREFIX
	}
#endif
} GpaFunctionTable;

#define GPA_FUNCTION_TABLE_MAJOR_VERSION_NUMBER 4
#define GPA_FUNCTION_TABLE_MINOR_VERSION_NUMBER sizeof(GpaFunctionTable)

#endif /* GPU_PERFORMANCE_API_GPU_PERF_API_H_ */
