// The subset of node-bacnet 0.2.4 (untyped CommonJS) that cabinet uses, client and server side.
declare module 'node-bacnet' {
  import { EventEmitter } from 'node:events';

  export interface BacnetValue {
    type: number;
    value: unknown;
  }
  export interface BacnetObjectId {
    type: number;
    instance: number;
  }
  export interface BacnetAddress {
    address: string;
    forwardedFrom?: string | null;
  }
  export type Receiver = string | BacnetAddress;
  export type Callback<T = void> = (err: (Error & { bacnetErrorClass?: number; bacnetErrorCode?: number; bacnetAbortReason?: number }) | null | undefined, value?: T) => void;

  export interface ReadPropertyResult {
    objectId: BacnetObjectId;
    property: { id: number; index: number };
    values: BacnetValue[];
  }
  export interface WpmProperty {
    property: { id: number; index: number };
    value: BacnetValue[];
    priority: number;
  }
  export interface WpmObject {
    objectId: BacnetObjectId;
    values: WpmProperty[];
  }
  /** One object of a ReadPropertyMultiple request. */
  export interface ReadAccessSpecification {
    objectId: BacnetObjectId;
    properties: { id: number; index?: number }[];
  }
  /** An RPM answer entry: the values, or one value of type 105 (ERROR) holding errorClass/errorCode. */
  export interface ReadAccessResult {
    objectId: BacnetObjectId;
    values: { id: number; index: number; value: BacnetValue[] }[];
  }
  /** What a device sends in a ReadPropertyMultiple-ACK (an error entry: value.type 'BacnetError'). */
  export interface ReadAccessResponse {
    objectId: BacnetObjectId;
    values: { property: { id: number; index: number }; value: BacnetValue[] }[];
  }
  export interface CovValue {
    property: { id: number; index?: number };
    value: BacnetValue[];
    priority?: number;
  }
  export interface CovNotification {
    subscriberProcessId: number;
    initiatingDeviceId: BacnetObjectId;
    monitoredObjectId: BacnetObjectId;
    timeRemaining: number;
    values: CovValue[];
  }
  export interface SubscribeCovRequest {
    subscriberProcessId: number;
    monitoredObjectId: BacnetObjectId;
    cancellationRequest: boolean;
    issueConfirmedNotifications?: boolean;
    lifetime?: number;
  }
  export interface ServiceContent<P> {
    header: { sender: BacnetAddress; expectingReply?: boolean };
    service: number;
    invokeId: number;
    payload: P;
  }

  export interface ClientOptions {
    port?: number;
    interface?: string;
    broadcastAddress?: string;
    apduTimeout?: number;
    reuseAddr?: boolean;
  }

  class Client extends EventEmitter {
    constructor(options?: ClientOptions);
    whoIs(options?: { lowLimit?: number; highLimit?: number }): void;
    whoIs(receiver: Receiver, options?: { lowLimit?: number; highLimit?: number }): void;
    writeProperty(
      receiver: Receiver,
      objectId: BacnetObjectId,
      propertyId: number,
      values: BacnetValue[],
      options: { arrayIndex?: number; priority?: number },
      next: Callback,
    ): void;
    writePropertyMultiple(receiver: Receiver, values: WpmObject[], options: object, next: Callback): void;
    readProperty(
      receiver: Receiver,
      objectId: BacnetObjectId,
      propertyId: number,
      options: { arrayIndex?: number },
      next: Callback<ReadPropertyResult>,
    ): void;
    readPropertyMultiple(receiver: Receiver, properties: ReadAccessSpecification[], options: object, next: Callback<{ values: ReadAccessResult[] }>): void;
    subscribeCov(
      receiver: Receiver,
      objectId: BacnetObjectId,
      subscribeId: number,
      cancel: boolean,
      issueConfirmedNotifications: boolean,
      lifetime: number,
      options: object,
      next: Callback,
    ): void;
    confirmedCOVNotification(
      receiver: Receiver,
      monitoredObject: BacnetObjectId,
      subscribeId: number,
      initiatingDeviceId: number,
      lifetime: number,
      values: CovValue[],
      options: object,
      next: Callback,
    ): void;
    unconfirmedCOVNotification(receiver: Receiver, subscribeId: number, initiatingDeviceId: number, monitoredObject: BacnetObjectId, timeRemaining: number, values: CovValue[]): void;
    readPropertyMultipleResponse(receiver: Receiver, invokeId: number, values: ReadAccessResponse[]): void;
    iAmResponse(receiver: Receiver | null, deviceId: number, segmentation: number, vendorId: number): void;
    simpleAckResponse(receiver: Receiver, service: number, invokeId: number): void;
    errorResponse(receiver: Receiver, service: number, invokeId: number, errorClass: number, errorCode: number): void;
    readPropertyResponse(receiver: Receiver, invokeId: number, objectId: BacnetObjectId, property: { id: number; index: number }, value: BacnetValue[]): void;
    close(): void;
    static readonly enum: Record<string, Record<string, number> | number>;
  }
  export default Client;
}
