/* SPDX-License-Identifier: MIT */
/*
 * gpu_perf_api_function_types.h — one function-pointer type per entry of the
 * GPA 3.17 function table, named Gpa<Function>PtrType.
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
typedef GpaStatus (*GpaGetNumCountersPtrType)(GpaContextId gpa_context_id, GpaUInt32* number_of_counters);
typedef GpaStatus (*GpaGetCounterNamePtrType)(GpaContextId gpa_context_id, GpaUInt32 index, const char** counter_name);
typedef GpaStatus (*GpaGetCounterIndexPtrType)(GpaContextId gpa_context_id, const char* counter_name, GpaUInt32* counter_index);
typedef GpaStatus (*GpaGetCounterGroupPtrType)(GpaContextId gpa_context_id, GpaUInt32 index, const char** counter_group);
typedef GpaStatus (*GpaGetCounterDescriptionPtrType)(GpaContextId gpa_context_id, GpaUInt32 index, const char** counter_description);
typedef GpaStatus (*GpaGetCounterDataTypePtrType)(GpaContextId gpa_context_id, GpaUInt32 index, GpaDataType* counter_data_type);
typedef GpaStatus (*GpaGetCounterUsageTypePtrType)(GpaContextId gpa_context_id, GpaUInt32 index, GpaUsageType* counter_usage_type);
typedef GpaStatus (*GpaGetCounterUuidPtrType)(GpaContextId gpa_context_id, GpaUInt32 index, GpaUuid* counter_uuid);
typedef GpaStatus (*GpaGetCounterSampleTypePtrType)(GpaContextId gpa_context_id, GpaUInt32 index, GpaCounterSampleType* counter_sample_type);
typedef GpaStatus (*GpaGetDataTypeAsStrPtrType)(GpaDataType counter_data_type, const char** type_as_str);
typedef GpaStatus (*GpaGetUsageTypeAsStrPtrType)(GpaUsageType counter_usage_type, const char** usage_type_as_str);
typedef GpaStatus (*GpaCreateSessionPtrType)(GpaContextId gpa_context_id, GpaSessionSampleType gpa_session_sample_type, GpaSessionId* gpa_session_id);
typedef GpaStatus (*GpaDeleteSessionPtrType)(GpaSessionId gpa_session_id);
typedef GpaStatus (*GpaBeginSessionPtrType)(GpaSessionId gpa_session_id);
typedef GpaStatus (*GpaEndSessionPtrType)(GpaSessionId gpa_session_id);
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

#endif /* GPU_PERFORMANCE_API_GPU_PERF_API_FUNCTION_TYPES_H_ */
