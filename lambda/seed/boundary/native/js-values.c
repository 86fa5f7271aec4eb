#include "js-values.h"
#include <stdlib.h>
#include <string.h>

char *js_string_copy(napi_env env, napi_value value) {
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char *text = malloc(length + 1);
  if (text == NULL) return NULL;
  if (napi_get_value_string_utf8(env, value, text, length + 1, &length) != napi_ok || strlen(text) != length) {
    free(text);
    return NULL;
  }
  return text;
}

napi_value js_type_error(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

napi_value js_number(napi_env env, double value) {
  napi_value result;
  napi_create_double(env, value, &result);
  return result;
}

napi_value js_queue_work(napi_env env, const char *name, napi_async_execute_callback execute, napi_async_complete_callback complete,
                         void *data, napi_deferred *deferred, napi_async_work *work) {
  napi_value promise, resource_name;
  if (napi_create_promise(env, deferred, &promise) != napi_ok
      || napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource_name) != napi_ok
      || napi_create_async_work(env, NULL, resource_name, execute, complete, data, work) != napi_ok
      || napi_queue_async_work(env, *work) != napi_ok) {
    // Only reached before the work is queued: nothing else holds `data`.
    if (*work != NULL) napi_delete_async_work(env, *work);
    return NULL;
  }
  return promise;
}
