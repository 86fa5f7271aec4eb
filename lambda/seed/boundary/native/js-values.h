// JavaScript values the addon's parts read and make (js-values.c).
#ifndef CDK_EFS_KIT_JS_VALUES_H
#define CDK_EFS_KIT_JS_VALUES_H
#include <node_api.h>

// A malloc'd copy of a JS string, or NULL if it is not one or holds a NUL (which C would cut it at).
char *js_string_copy(napi_env env, napi_value value);

// Throws a TypeError with `message`; returns NULL, what a napi callback that threw returns.
napi_value js_type_error(napi_env env, const char *message);

napi_value js_number(napi_env env, double value);

// Queues `data` on libuv's thread pool as the async work `name` (`execute` there, `complete` back on
// the JS thread, which resolves `*deferred`): its promise; or NULL with nothing queued, for the caller
// to free `data` and throw.
napi_value js_queue_work(napi_env env, const char *name, napi_async_execute_callback execute, napi_async_complete_callback complete,
                         void *data, napi_deferred *deferred, napi_async_work *work);

#endif
