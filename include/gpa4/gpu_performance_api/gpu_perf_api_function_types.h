/* SPDX-License-Identifier: MIT */
/*
 * gpu_perf_api_function_types.h — one function-pointer type per entry of the
 * GPA 4.3 function table, named Gpa<Function>PtrType.
 */
#ifndef GPU_PERFORMANCE_API_GPU_PERF_API_FUNCTION_TYPES_H_
#define GPU_PERFORMANCE_API_GPU_PERF_API_FUNCTION_TYPES_H_

#include "gpu_perf_api_types.h"

typedef void (*GpaLoggingCallbackPtrType)(GpaLoggingType message_type, const char* message);

typedef GpaStatus (*GpaGetFuncTablePtrType)(void* gpa_func_table);
typedef GpaStatus (*GpaRegisterLoggingCallbackPtrType)(GpaLoggingType logging_type, GpaLoggingCallbackPtrType callback_func_ptr);
typedef GpaStatus (*GpaInitializePtrType)(GpaInitializeFlags gpa_initialize_flags);
typedef GpaStatus (*GpaDestroyPtrType)(void);
typedef GpaStatus (*GpaOpenContextPtrType)(void* api_context, GpaOpenContextFlags gpa_open_context_flags, GpaContextId* gpa_context_id);
typedef GpaStatus (*GpaCloseContextPtrType)(GpaContextId gpa_context_id);
typedef GpaStatus (*GpaGetSupportedSampleTypesPtrType)(GpaContextId gpa_context_id, GpaContextSampleTypeFlags* sample_types);
typedef GpaStatus (*GpaGetDeviceAndRevisionIdPtrType)(GpaContextId gpa_context_id, GpaUInt32* device_id, GpaUInt32* revision_id);
typedef GpaStatus (*GpaGetDeviceNamePtrType)(GpaContextId gpa_context_id, const char** device_name);
typedef GpaStatus (*GpaUpdateDeviceInformationPtrType)(GpaContextId gpa_context_id, GpaUInt32 num_shader_engines, GpaUInt32 num_compute_units, GpaUInt32 num_simds, GpaUInt32 num_waves_per_simd);
typedef GpaStatus (*GpaGetNumCountersPtrType)(GpaSessionId gpa_session_id, GpaUInt32* number_of_counters);
typedef GpaStatus (*GpaGetCounterNamePtrType)(GpaSessionId gpa_session_id, GpaUInt32 index, const char** counter_name);
typedef GpaStatus (*GpaGetCounterIndexPtrType)(GpaSessionId gpa_session_id, const char* counter_name, GpaUInt32* counter_index);
typedef GpaStatus (*GpaGetCounterGroupPtrType)(GpaSessionId gpa_session_id, GpaUInt32 index, const char** counter_group);
typedef GpaStatus (*GpaGetCounterDescriptionPtrType)(GpaSessionId gpa_session_id, GpaUInt32 index, const char** counter_description);
typedef GpaStatus (*GpaGetCounterDataTypePtrType)(GpaSessionId gpa_session_id, GpaUInt32 index, GpaDataType* counter_data_type);
typedef GpaStatus (*GpaGetCounterUsageTypePtrType)(GpaSessionId gpa_session_id, GpaUInt32 index, GpaUsageType* counter_usage_type);
typedef GpaStatus (*GpaGetCounterUuidPtrType)(GpaSessionId gpa_session_id, GpaUInt32 index, GpaUuid* counter_uuid);
typedef GpaStatus (*GpaGetCounterSampleTypePtrType)(GpaSessionId gpa_session_id, GpaUInt32 index, GpaCounterSampleType* counter_sample_type);
typedef GpaStatus (*GpaGetDataTypeAsStrPtrType)(GpaDataType counter_data_type, const char** type_as_str);
typedef GpaStatus (*GpaGetUsageTypeAsStrPtrType)(GpaUsageType counter_usage_type, const char** usage_type_as_str);
typedef GpaStatus (*GpaCreateSessionPtrType)(GpaContextId gpa_context_id, GpaSessionSampleType gpa_session_sample_type, GpaSessionId* gpa_session_id);
typedef GpaStatus (*GpaDeleteSessionPtrType)(GpaSessionId gpa_session_id);
typedef GpaStatus (*GpaBeginSessionPtrType)(GpaSessionId gpa_session_id);
typedef GpaStatus (*GpaEndSessionPtrType)(GpaSessionId gpa_session_id);
typedef GpaStatus (*GpaResetSessionPtrType)(GpaSessionId gpa_session_id);
typedef GpaStatus (*GpaAbortSessionPtrType)(GpaSessionId gpa_session_id);
typedef GpaStatus (*GpaSqttGetInstructionMaskPtrType)(GpaSessionId gpa_session_id, GpaSqttInstructionFlags* sqtt_instruction_mask);
typedef GpaStatus (*GpaSqttSetInstructionMaskPtrType)(GpaSessionId gpa_session_id, GpaSqttInstructionFlags sqtt_instruction_mask);
typedef GpaStatus (*GpaSqttGetComputeUnitIdPtrType)(GpaSessionId gpa_session_id, GpaUInt32* sqtt_compute_unit_id);
typedef GpaStatus (*GpaSqttSetComputeUnitIdPtrType)(GpaSessionId gpa_session_id, GpaUInt32 sqtt_compute_unit_id);
typedef GpaStatus (*GpaSqttBeginPtrType)(GpaSessionId gpa_session_id, void* command_list);
typedef GpaStatus (*GpaSqttEndPtrType)(GpaSessionId gpa_session_id, void* command_list);
typedef GpaStatus (*GpaSqttGetSampleResultSizePtrType)(GpaSessionId gpa_session_id, size_t* sample_result_size_in_bytes);
typedef GpaStatus (*GpaSqttGetSampleResultPtrType)(GpaSessionId gpa_session_id, size_t sample_result_size_in_bytes, void* sqtt_results);
typedef GpaStatus (*GpaSpmSetSampleIntervalPtrType)(GpaSessionId gpa_session_id, GpaUInt32 interval);
typedef GpaStatus (*GpaSpmSetDurationPtrType)(GpaSessionId gpa_session_id, GpaUInt32 nanosecond_duration);
typedef GpaStatus (*GpaSpmBeginPtrType)(GpaSessionId gpa_session_id, void* command_list);
typedef GpaStatus (*GpaSpmEndPtrType)(GpaSessionId gpa_session_id, void* command_list);
typedef GpaStatus (*GpaSpmGetSampleResultSizePtrType)(GpaSessionId gpa_session_id, size_t* sample_result_size_in_bytes);
typedef GpaStatus (*GpaSpmGetSampleResultPtrType)(GpaSessionId gpa_session_id, size_t sample_result_size_in_bytes, void* spm_results);
typedef GpaStatus (*GpaSpmCalculateDerivedCountersPtrType)(GpaSessionId gpa_session_id, GpaSpmData* spm_data, GpaUInt32 derived_counter_count, GpaUInt64* derived_counter_results);
typedef GpaStatus (*GpaEnableCounterPtrType)(GpaSessionId gpa_session_id, GpaUInt32 counter_index);
typedef GpaStatus (*GpaDisableCounterPtrType)(GpaSessionId gpa_session_id, GpaUInt32 counter_index);
typedef GpaStatus (*GpaEnableCounterByNamePtrType)(GpaSessionId gpa_session_id, const char* counter_name);
typedef GpaStatus (*GpaDisableCounterByNamePtrType)(GpaSessionId gpa_session_id, const char* counter_name);
typedef GpaStatus (*GpaEnableAllCountersPtrType)(GpaSessionId gpa_session_id);
typedef GpaStatus (*GpaDisableAllCountersPtrType)(GpaSessionId gpa_session_id);
typedef GpaStatus (*GpaGetPassCountPtrType)(GpaSessionId gpa_session_id, GpaUInt32* number_of_passes);
typedef GpaStatus (*GpaGetNumEnabledCountersPtrType)(GpaSessionId gpa_session_id, GpaUInt32* counter_count);
typedef GpaStatus (*GpaGetEnabledIndexPtrType)(GpaSessionId gpa_session_id, GpaUInt32 enabled_number, GpaUInt32* enabled_counter_index);
typedef GpaStatus (*GpaIsCounterEnabledPtrType)(GpaSessionId gpa_session_id, GpaUInt32 counter_index);
typedef GpaStatus (*GpaBeginCommandListPtrType)(GpaSessionId gpa_session_id, GpaUInt32 pass_index, void* command_list, GpaCommandListType command_list_type, GpaCommandListId* gpa_command_list_id);
typedef GpaStatus (*GpaEndCommandListPtrType)(GpaCommandListId gpa_command_list_id);
typedef GpaStatus (*GpaBeginSamplePtrType)(GpaUInt32 sample_id, GpaCommandListId gpa_command_list_id);
typedef GpaStatus (*GpaEndSamplePtrType)(GpaCommandListId gpa_command_list_id);
typedef GpaStatus (*GpaContinueSampleOnCommandListPtrType)(GpaUInt32 source_sample_id, GpaCommandListId primary_gpa_command_list_id);
typedef GpaStatus (*GpaCopySecondarySamplesPtrType)(GpaCommandListId secondary_gpa_command_list_id, GpaCommandListId primary_gpa_command_list_id, GpaUInt32 number_of_samples, GpaUInt32* new_sample_ids);
typedef GpaStatus (*GpaGetSampleCountPtrType)(GpaSessionId gpa_session_id, GpaUInt32* sample_count);
typedef GpaStatus (*GpaIsPassCompletePtrType)(GpaSessionId gpa_session_id, GpaUInt32 pass_index);
typedef GpaStatus (*GpaIsSessionCompletePtrType)(GpaSessionId gpa_session_id);
typedef GpaStatus (*GpaGetSampleResultSizePtrType)(GpaSessionId gpa_session_id, GpaUInt32 sample_id, size_t* sample_result_size_in_bytes);
typedef GpaStatus (*GpaGetSampleResultPtrType)(GpaSessionId gpa_session_id, GpaUInt32 sample_id, size_t sample_result_size_in_bytes, void* counter_sample_results);
typedef const char* (*GpaGetStatusAsStrPtrType)(GpaStatus status);
typedef GpaStatus (*GpaGetSampleIdPtrType)(GpaSessionId gpa_session_id, GpaUInt32 index, GpaUInt32* sample_id);
typedef GpaStatus (*GpaGetVersionPtrType)(GpaUInt32* major_version, GpaUInt32* minor_version, GpaUInt32* build_number, GpaUInt32* update_version);
typedef GpaStatus (*GpaGetDeviceGenerationPtrType)(GpaContextId gpa_context_id, GpaHwGeneration* hardware_generation);
typedef GpaStatus (*GpaGetDeviceMaxWaveSlotsPtrType)(GpaContextId gpa_context_id, GpaUInt32* max_wave_slots);
typedef GpaStatus (*GpaSqttSpmBeginPtrType)(GpaSessionId gpa_session_id, void* command_list);
typedef GpaStatus (*GpaSqttSpmEndPtrType)(GpaSessionId gpa_session_id, void* command_list);
typedef GpaStatus (*GpaGetDeviceMaxVgprsPtrType)(GpaContextId gpa_context_id, GpaUInt32* max_vgprs);
typedef GpaStatus (*GpaGetDeviceMaxLdsBytesPtrType)(GpaContextId gpa_context_id, GpaUInt32* max_lds_bytes);

#endif /* GPU_PERFORMANCE_API_GPU_PERF_API_FUNCTION_TYPES_H_ */
