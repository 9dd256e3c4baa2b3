// The two APIs the cluster itself sends. Until the codec's generated descriptors land these
// are stand-ins carrying only the key, name and message types; connections built on the
// wire need the codec's `MetadataApi` / `FindCoordinatorApi`.
import type {
  FindCoordinatorRequestShape,
  FindCoordinatorResponseShape,
  MetadataRequestShape,
  MetadataResponseShape,
} from './messages.js';

function notHere(): never {
  throw new Error('stand-in descriptor: use the codec descriptor');
}

export const MetadataApi = {
  apiKey: 3,
  name: 'Metadata',
  createRequest: (): MetadataRequestShape => notHere(),
  decodeResponse: (): MetadataResponseShape => notHere(),
} as const;

export const FindCoordinatorApi = {
  apiKey: 10,
  name: 'FindCoordinator',
  createRequest: (): FindCoordinatorRequestShape => notHere(),
  decodeResponse: (): FindCoordinatorResponseShape => notHere(),
} as const;
