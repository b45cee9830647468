// Public API of @lasso/apiserver/testing: protobuf request bodies built from the server's own type table,
// for tests of protobuf decoding (the built-in server's, or a real kube-apiserver's as the judge).
export {
  encodeProtobufEnvelope,
  encodeProtobufMessage,
  encodeProtobufObject,
} from '../protobuf/encode-protobuf-object.ts';
