// Opening a path beneath a directory the seed holds, never leaving it (open-beneath.c).
#ifndef CDK_EFS_KIT_OPEN_BENEATH_H
#define CDK_EFS_KIT_OPEN_BENEATH_H
#include <node_api.h>

// Adds beneathResolution, openBeneathSync, openBeneath and closeBeneath to the addon's exports.
void export_open_beneath(napi_env env, napi_value exports);

// Adds atCallSync and atCall (at-calls.c): the target's calls on one name in a held directory.
void export_at_calls(napi_env env, napi_value exports);

#endif
