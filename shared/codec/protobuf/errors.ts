/** The protobuf codec's errors: one class for every codec failure, so that callers tell them from others. */

/** Malformed protobuf input, or a value that does not fit its schema. */
export class ProtobufError extends Error {
  override name = 'ProtobufError';
}

/** A body without the `k8s\0` prefix (upstream rejects it: a 400 for request bodies). */
export class ProtobufPrefixError extends ProtobufError {
  override name = 'ProtobufPrefixError';
}
