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
