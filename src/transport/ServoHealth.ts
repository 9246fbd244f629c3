/**
 * What a servo's hardware-error bits say, whatever its family: each servo
 * bus's control table names its bits with these (ServoConditionTable).
 */
export type HardwareErrorKind =
  "input_voltage" | "overheating" | "overload" | "overcurrent" | "electrical_shock" | "encoder";

/**
 * One servo's condition as its own registers report it, with what is near
 * or past the servo's own limits. The HTTP API carries this shape unchanged
 * (`GET /v1/state` → `servo_health`, the SSE `state` event). It is for the
 * operator, except `shut_down`: the executor answers a motion on a servo
 * that shut down `blocked` before recording anything (the transport refuses
 * it too, on its torque and error bits). A reading the servo has not given
 * yet is absent, never 0.
 */
export interface ServoHealth {
  readonly axis: string;
  readonly servo_id: number;
  /** Epoch ms (our clock) of the newest read of temperature and voltage; absent before the first. */
  readonly read_at?: number;
  readonly temperature_c?: number;
  /** The servo's own Temperature_Limit (°C): past it the servo sets its overheating bit. */
  readonly temperature_limit_c?: number;
  readonly voltage_v?: number;
  /** The servo's own Min / Max_Voltage_Limit (V). */
  readonly voltage_min_v?: number;
  readonly voltage_max_v?: number;
  /**
   * Effort, signed by direction: % of the maximum output where the servo
   * reports a load, % of its own Current_Limit where it reports a current.
   */
  readonly load_pct?: number;
  /** Where the servo reports a current: the current (mA), signed. */
  readonly current_ma?: number;
  /** Hardware-error bits set now. */
  readonly hardware_errors: readonly HardwareErrorKind[];
  /** It tripped on a hardware error: no motion is sent to it until an operator recovers it (torque off, unless the error is outside its shutdown set); kept after a Feetech's bits clear. */
  readonly shut_down: boolean;
  /** What needs the operator's eye, worst first. */
  readonly alerts: readonly ServoAlert[];
}

/** `alarm`: the servo has an error or is past a limit; `warning`: near one. */
export type ServoAlertLevel = "warning" | "alarm";

export type ServoAlertKind = "hardware_error" | "temperature" | "voltage" | "load";

export interface ServoAlert {
  readonly kind: ServoAlertKind;
  readonly level: ServoAlertLevel;
  /** The hardware error, for `hardware_error`. */
  readonly error?: HardwareErrorKind;
  /** What is wrong, naming the servo and its joint. */
  readonly message: string;
  /** What the operator should do about it. */
  readonly advice: string;
}
