import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

/** FileSystemMonitoring's grid: a row is 24 units wide, a note and three graphs of 6 by 6. */
export const WIDTH = 24;
export const TEXT_WIDTH = 6;
export const GRAPH_HEIGHT = 6;

/** The text widget that opens a row and says how to read it. */
export function note(markdown: string): cloudwatch.TextWidget {
  return new cloudwatch.TextWidget({ markdown, width: TEXT_WIDTH, height: GRAPH_HEIGHT });
}

/** A graph of `metrics` on the left axis, and of `right.metrics` on a right axis of their own (a count beside bytes, say). */
export function graph(title: string, metrics: cloudwatch.IMetric[],
  axis: { label: string; stacked?: boolean; max?: number; line?: cloudwatch.HorizontalAnnotation; start?: string },
  right?: { metrics: cloudwatch.IMetric[]; label: string }): cloudwatch.GraphWidget {
  return new cloudwatch.GraphWidget({
    title, left: metrics, stacked: axis.stacked, width: TEXT_WIDTH, height: GRAPH_HEIGHT, start: axis.start,
    leftYAxis: { label: axis.label, showUnits: false, min: 0, max: axis.max },
    leftAnnotations: axis.line && [axis.line],
    right: right?.metrics,
    rightYAxis: right && { label: right.label, showUnits: false, min: 0 },
  });
}
