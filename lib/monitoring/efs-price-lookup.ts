import { CustomResource, Duration, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import {
  EFFECTIVE_DATE_ATTRIBUTE, FILTERS_VERSION, MISSING_ATTRIBUTE, PRICE_FILTERS, PRICE_LOOKUP_RESOURCE_TYPE, PriceLookupProperties,
} from '../cost/contract/efs-price-lookup';
import type { EfsPricingProps } from '../cost/efs-pricing';
import { handlerCode } from '../core/handler-code';
import { acknowledgeFunction, acknowledgeProvider, acknowledgeWildcard } from '../core/nag';

/** The stack's one lookup: every monitoring in the stack reads the same prices. */
const LOOKUP_ID = 'CdkEfsKitEfsPrices';

/**
 * The EFS list prices of the stack's Region, looked up at deploy time from the AWS Price List
 * (GetProducts, served from us-east-1): a function that calls it on Create and Update, aws-cdk's
 * Provider framework (onEvent only) and the custom resource, once per stack. `prices` holds each
 * price as a deploy-time token; a price the Price List lacks for the Region is 0 there and named
 * in `missing`.
 */
export class EfsPriceLookup extends Construct {
  /** The stack's lookup, made on first use. */
  public static of(scope: Construct): EfsPriceLookup {
    const stack = Stack.of(scope);
    return (stack.node.tryFindChild(LOOKUP_ID) as EfsPriceLookup | undefined) ?? new EfsPriceLookup(stack, LOOKUP_ID);
  }

  /** The custom resource; its attributes are the prices. */
  public readonly resource: CustomResource;
  /** The Region's prices as tokens, labelled. */
  public readonly prices: EfsPricingProps;
  /** The fields the Price List had no price for, comma-separated, or "none" (a deploy-time token). */
  public readonly missing: string;
  /** The latest effective date of the prices found, YYYY-MM-DD (a deploy-time token). */
  public readonly effectiveDate: string;

  private constructor(scope: Stack, id: string) {
    super(scope, id);
    const region = scope.region;
    const fn = new lambda.Function(this, 'Function', {
      runtime: lambda.Runtime.NODEJS_22_X,
      code: handlerCode('price-lookup'),
      handler: 'index.onEvent',
      memorySize: 256,
      // 13 lookups of a few products each, retried with pauses when throttled.
      timeout: Duration.minutes(5),
      description: 'cdk-efs-kit: looks up the EFS list prices of the stack\'s Region in the AWS Price List',
    });
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['pricing:GetProducts'], resources: ['*'] }));
    acknowledgeFunction(fn);
    acknowledgeWildcard(fn, '*',
      'pricing:GetProducts has no resource type: IAM accepts only "*" for it. The call reads the public AWS price list and nothing of the account.');
    const provider = new cr.Provider(this, 'Provider', { onEventHandler: fn });
    acknowledgeProvider(provider, [fn]);

    const fields = Object.keys(PRICE_FILTERS);
    const properties: PriceLookupProperties = { Region: region, Fields: fields.join(','), FiltersVersion: FILTERS_VERSION };
    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: PRICE_LOOKUP_RESOURCE_TYPE,
      properties: { ...properties },
    });
    const price = (field: string) => Token.asNumber(this.resource.getAtt(field));
    this.prices = {
      label: `${region} list prices from the AWS Price List, looked up at deploy time`,
      source: 'AWS Price List Query API, GetProducts (AmazonEFS)',
      ...Object.fromEntries(fields.map((f) => [f, price(f)])) as Omit<EfsPricingProps, 'label' | 'source'>,
    };
    this.missing = this.resource.getAttString(MISSING_ATTRIBUTE);
    this.effectiveDate = this.resource.getAttString(EFFECTIVE_DATE_ATTRIBUTE);
  }
}
