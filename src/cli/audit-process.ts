/**
 * Time travel in an audit command's own process: it serves nothing, so its
 * fold is not stopped with memory to spare for evaluate (the service's is:
 * src/base/memory-room.ts foldRoomRefusal); its heap is all the query's, sized
 * with NODE_OPTIONS=--max-old-space-size (docs/operations.md#memory).
 */
import type { TimeTravelOptions } from '../audit/time-travel';

export const CLI_TIME_TRAVEL: TimeTravelOptions = { roomRefusal: () => undefined };
