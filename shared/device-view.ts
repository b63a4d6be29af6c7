/** A paired device as `GET /api/v1/devices` lists it (SPEC §9: listed and revoked one by one). */
export interface DeviceView {
  readonly id: string;
  readonly name: string;
  readonly profile: string;
  readonly created_at: string;
  readonly revoked_at: string | null;
}
