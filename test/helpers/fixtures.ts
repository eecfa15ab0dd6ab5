/** Assertions and fixtures shared by the HTTP test files. */
import { expect } from 'vitest';
import { H, type TestApp, type TestResponse } from './app.js';

/** Asserts a WSME fault: the status and exactly `{faultcode, faultstring, debuginfo: null}`. */
export function expectFault(response: TestResponse, status: number, message: string): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: { faultcode: status >= 500 ? 'Server' : 'Client', faultstring: message, debuginfo: null },
  });
}

/** Creates a hashmap service; returns its id. */
export async function createService(t: TestApp, name: string): Promise<string> {
  const response = await t.post(`${H}/services/`, { name });
  expect(response.status, response.text).toBe(201);
  return response.body.service_id;
}

/** Creates a field of a service; returns its id. */
export async function createField(t: TestApp, serviceId: string, name: string): Promise<string> {
  const response = await t.post(`${H}/fields/`, { service_id: serviceId, name });
  expect(response.status, response.text).toBe(201);
  return response.body.field_id;
}

/** Creates a hashmap group; returns its id. */
export async function createGroup(t: TestApp, name: string): Promise<string> {
  const response = await t.post(`${H}/groups/`, { name });
  expect(response.status, response.text).toBe(201);
  return response.body.group_id;
}

/** API datetime form: UTC with seconds and an explicit offset. */
export const API_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

/** Asserts an API datetime is within `toleranceMs` of now. */
export function expectNow(value: string, toleranceMs = 5000): void {
  expect(value).toMatch(API_DATETIME);
  expect(Math.abs(Date.parse(value) - Date.now())).toBeLessThanOrEqual(toleranceMs);
}
