export interface LabelSelector {
  matches(labels: Record<string, string> | undefined): boolean;
  readonly empty: boolean;
}

export function parseLabelSelector(_text: string): LabelSelector {
  throw new Error('not implemented');
}
