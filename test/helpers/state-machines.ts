import { Template } from 'aws-cdk-lib/assertions';

/**
 * The definition of the state machine whose logical id or definition contains `name`, parsed; tokens
 * (bucket names, ARNs), which sit inside JSON strings, are stood in for by 'TOKEN'.
 */
export function definitionOf(template: Template, name: string): any {
  const machines = Object.entries<any>(template.findResources('AWS::StepFunctions::StateMachine'));
  const [, sm] = machines.find(([id, m]) => id === name || JSON.stringify(m).includes(name))!;
  const body = sm.Properties.DefinitionString;
  const parts: unknown[] = typeof body === 'string' ? [body] : body['Fn::Join'][1];
  return JSON.parse(parts.map((p) => (typeof p === 'string' ? p : 'TOKEN')).join(''));
}
