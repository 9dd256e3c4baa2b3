/**
 * Checks that a client class was given a cluster (what `Cluster.connect` resolves with) as its
 * first argument. A configuration object in its place (as Java's `new KafkaProducer(props)` or
 * kafkajs' `new Kafka({ brokers })` take) then fails at construction, with a message that says
 * what to pass, rather than later with a TypeError from inside the first call.
 *
 * @throws TypeError when `cluster` has no `snapshot()` (every cluster, and every stand-in a
 *   test makes, has one)
 */
export function requireCluster(owner: string, cluster: unknown): void {
  if (
    typeof cluster === 'object' &&
    cluster !== null &&
    typeof (cluster as { snapshot?: unknown }).snapshot === 'function'
  )
    return;
  throw new TypeError(
    `${owner} takes a connected cluster as its first argument ` +
      `(const cluster = await Cluster.connect('host:9092'), with connection settings in ` +
      `Cluster.connect's second argument); got ${describeArgument(cluster)}`,
  );
}

function describeArgument(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== 'object') return `a ${typeof value}`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  const keys = Object.keys(value);
  if (keys.length === 0) return 'an object with no properties';
  return `an object with the keys ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', ...' : ''}`;
}
