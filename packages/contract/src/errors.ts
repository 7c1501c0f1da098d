/**
 * The server's error catalogue. Every error a client can see has a stable `code`, an HTTP status and a
 * fixed lower-case English `message` from the spec's catalogues; the console translates it as
 * `errors.http.<message>`. Variable parts travel in `details`, never in the message.
 */
export const ERRORS = {
  unauthenticated: { status: 401, message: 'unauthenticated' },
  not_authorized: { status: 401, message: 'unauthenticated' },
  invalid_credentials: { status: 401, message: 'invalid credentials' },
  invalid_token: { status: 401, message: 'invalid token' },
  too_many_attempts: { status: 429, message: 'too many attempts' },
  not_found: { status: 404, message: 'item not found' },
  invalid_data: { status: 400, message: 'invalid data sent' },
  wrong_parameters: { status: 400, message: 'wrong parameters' },
  method_prohibited: { status: 405, message: 'method prohibited' },
  action_prohibited: { status: 403, message: 'action prohibited' },
  cannot_perform_action: { status: 400, message: "can't perform action" },
  value_not_unique: { status: 409, message: 'value not unique' },
  wrong_file_body: { status: 400, message: 'wrong file body' },
  invalid_file: { status: 400, message: 'invalid file' },
  payload_too_large: { status: 413, message: 'file too large' },
  /** Too many imports are being read at once on this server: try again in a moment. */
  imports_busy: { status: 503, message: 'device or service not available' },
  internal: { status: 500, message: 'internal server error' },
  invalid_related_entity: { status: 400, message: 'invalid related entity sent' },
  wrong_old_password: { status: 400, message: 'wrong old password' },
  // registration and recovery
  invite_invalid: {
    status: 400,
    message: "can't find the user. contact the administrator for a new invitation.",
  },
  verification_link_outdated: { status: 400, message: 'verification link is outdated or incorrect' },
  invalid_confirmation_code: { status: 400, message: 'invalid confirmation code' },
  user_already_registered: { status: 409, message: 'user already registered' },
  email_required_for_registration: {
    status: 400,
    message: 'user must provide an e-mail for registration',
  },
  email_already_used: { status: 409, message: 'e-mail already used' },
  registration_disabled: { status: 403, message: 'action prohibited' },
  // users and groups
  cannot_remove_only_group: {
    status: 400,
    message: 'cannot remove the current user from their only group or top-level group',
  },
  users_must_be_moved: { status: 400, message: 'users must first be moved before deleting a group' },
  domain_address_exists: {
    status: 409,
    message: 'domain with the same type and logical address exists',
  },
  wrong_group_hierarchy: { status: 400, message: 'wrong group hierarchy' },
  child_contains_type: { status: 400, message: 'a child already contains a type' },
  needs_building_parent: { status: 400, message: 'a domain needs a building parent' },
  cannot_delete_only_group: { status: 400, message: 'cannot delete the only group of the current user' },
  subnetwork_address_once: {
    status: 400,
    message: 'an internal subnetwork address can be added only once',
  },
  license_consistency: { status: 400, message: 'license consistency error' },
  role_in_use: { status: 409, message: 'role is in use' },
  // groups: licence consistency of a group against its parent, children and the project (spec entities §8);
  // each problem travels as one `details` item { code, message, type, ... } the console shows for 30 s
  license_type_missing_in_parent: { status: 400, message: 'license type is missing in the parent group' },
  license_quantity_exceeded: { status: 400, message: 'license quantity exceeded' },
  license_quantity_exceeded_in_period: { status: 400, message: 'license quantity exceeded in the period' },
  license_quantity_exceeded_in_project: { status: 400, message: 'license quantity exceeded in the project' },
  license_period_missing: { status: 400, message: 'license period is missing in the parent group' },
  license_period_missing_in_period: { status: 400, message: 'license period is outside the parent period' },
  license_period_missing_in_project: { status: 400, message: 'license period is outside the project period' },
  license_less_than_children: { status: 400, message: 'license quantity is less than the sum of child groups' },
  license_period_shorter_than_children: { status: 400, message: 'license period is shorter than in child groups' },
  license_type_used_by_children: { status: 400, message: 'license type is used by child groups' },
  // batch user upload, per row (spec entities §5)
  import_cannot_parse_id: { status: 400, message: 'cannot parse id' },
  import_cannot_parse_email: { status: 400, message: 'cannot parse e-mail' },
  import_cannot_parse_license_count: { status: 400, message: 'cannot parse license count' },
  import_cannot_parse_license_period: { status: 400, message: 'cannot parse license period' },
  import_user_not_allowed: { status: 403, message: 'user not allowed' },
  import_object_not_allowed: { status: 403, message: 'object not allowed' },
  import_login_required: { status: 400, message: 'the username field is required' },
  // devices (spec entities §8)
  devices_must_be_moved: { status: 400, message: 'devices must first be moved before deleting a group' },
  serial_in_use: { status: 409, message: 'serial number in use' },
  device_unavailable: { status: 503, message: 'device or service not available' },
  /** The database did not answer in time (statement or pool time-out, connection lost): try again shortly. */
  database_unavailable: { status: 503, message: 'device or service not available' },
  device_offline: { status: 409, message: 'device status offline, unable to connect' },
  device_not_mqtt: { status: 409, message: 'device protocol not mqtt, unable to connect' },
  protocol_none: { status: 409, message: 'protocol none makes init, queue restart and sync impossible' },
  invalid_backup_image: { status: 400, message: 'invalid backup image' },
  // identifiers (spec entities §8)
  identifier_exists: { status: 409, message: 'identifier with this number and type already in system' },
  // elevators (spec entities §8)
  elevator_controller_linked: { status: 409, message: 'elevator controller already linked' },
  // guest access (spec entities §8)
  guest_invalid: { status: 404, message: 'invalid identifier' },
  guest_expired: { status: 410, message: 'identifier expired' },
  guest_pass_limit: { status: 409, message: 'pass limit reached' },
  guest_device_problem: { status: 503, message: 'device problem' },
  guest_device_not_found: { status: 404, message: 'device not found' },
  guest_face_not_recognized: { status: 403, message: 'face not recognized' },
  guest_limits: { status: 400, message: 'maximum passes count and maximum period limits reached' },
  // telephony (spec comms §8)
  unable_to_call_own_number: { status: 400, message: 'unable to call your number' },
  cannot_communicate_with_himself: { status: 400, message: 'user cannot communicate with himself' },
  device_has_virtual_number: { status: 409, message: 'device already has virtual number' },
  virtual_number_not_free: { status: 409, message: 'virtual number is not free' },
  sip_proxy_error: { status: 503, message: 'error sending number to sip proxy' },
  sip_numbers_limit: { status: 403, message: 'total sip numbers limit reached' },
  sip_numbers_user_limit: { status: 403, message: 'sip numbers per user limit reached' },
  group_sip_number_exists: { status: 409, message: 'sip number for the group exists' },
  cannot_delete_group_number: { status: 409, message: 'cannot delete group numbers' },
  cannot_delete_master_number: { status: 409, message: 'cannot delete user master numbers' },
  sip_trunk_uri_is_server: { status: 400, message: 'sip trunk uri equals server address' },
  /** A group's number is deactivated (or moved off its group) while its forward rules still reach the devices. */
  group_forward_rules_on_devices: { status: 409, message: 'group forward rules on devices must be disabled' },
  /** A group's number is deactivated (or moved off its group) while the group's resident phonebook is sent to devices. */
  group_phonebook_on_devices: { status: 409, message: 'the phonebook to devices must be disabled' },
  sip_service_start_failed: { status: 409, message: 'error starting sip service' },
  /** The SIP licence feature (or trunks, or the web dialer) is off for the server and the user. */
  sip_disabled: { status: 403, message: 'action prohibited' },
  /**
   * A licensed feature other than SIP, the mobile app or UKEY2 (elevators, amenities, guest access,
   * licence plates, guests' face ID) is off for the server and the user: refused as sip_disabled is.
   */
  feature_not_licensed: { status: 403, message: 'action prohibited' },
  // UKEY2 keys against the UKEY2 licence (spec entities §8)
  ukey2_not_licensed: { status: 403, message: 'ukey2 is not licensed' },
  ukey2_limit_project: { status: 400, message: 'exceeding the maximum ukey2 in the project' },
  ukey2_limit_group: { status: 400, message: 'exceeding the maximum ukey2 in the group' },
  // Apple Wallet passes of identifiers
  apple_wallet_not_configured: { status: 409, message: 'apple wallet is not configured' },
  apple_wallet_qr_only: { status: 400, message: 'apple wallet passes are made for qr identifiers only' },
  apple_wallet_cannot_sign: { status: 400, message: 'the apple wallet certificate and key cannot sign a pass' },
  // licences (spec comms §8; issue 14, licences)
  license_wrong_sign: { status: 400, message: 'wrong license sign' },
  license_invalid_file: { status: 400, message: 'invalid license file' },
  license_cannot_be_applied: { status: 400, message: 'license cannot be applied' },
  license_expired: { status: 400, message: 'license expired' },
  license_already_installed: { status: 409, message: 'license already installed' },
  license_server_not_responding: { status: 503, message: 'license server not responding' },
  license_server_not_configured: { status: 409, message: 'license server not configured' },
  license_not_found_for_project: { status: 404, message: 'no license found for the project' },
  license_instance_registered: { status: 409, message: 'server with the same instance id already registered' },
  mobile_app_limit_project: { status: 400, message: 'exceeding the maximum mobile apps in the project' },
  // mobile clients (issue 14): registering an app counts against the mobile app licence
  mobile_app_not_licensed: { status: 403, message: 'mobile app is not licensed' },
  mobile_app_limit_group: { status: 400, message: 'exceeding the maximum mobile apps in the group' },
  mobile_app_limit_user: { status: 400, message: 'exceeding the maximum mobile apps of the user' },
  mobile_sdk_disabled: { status: 403, message: 'mobile sdk is disabled' },
  mobile_sdk_key_invalid: { status: 403, message: 'invalid mobile sdk api key' },
  push_not_configured: { status: 409, message: 'push server not configured' },
  test_push_failed: { status: 502, message: 'the test push could not be sent' },
  // project settings (issue 14)
  test_mail_failed: { status: 502, message: 'the test mail could not be sent' },
  broker_certificates_invalid: { status: 400, message: 'the certificate and key do not form a pair' },
  broker_settings_failed: { status: 409, message: 'error mqtt broker settings sending' },
  // backups (issue 14): the backup's rows collide with rows that stay, or name rows that no longer exist
  backup_cannot_be_applied: { status: 409, message: 'the backup cannot be applied' },
  // device alarms (issue 13)
  alarm_already_processed: { status: 409, message: 'alarm already processed' },
  alarm_not_processed: { status: 409, message: 'alarm not processed' },
  // announces and polls (spec comms §5)
  announce_recipients_required: { status: 400, message: 'the announce must have recipients' },
  announce_poll_answers_required: { status: 400, message: 'a survey must have answers or allow a custom answer' },
  announce_not_editable: { status: 409, message: 'the announce cannot be changed once it was sent' },
  announce_poll_closed: { status: 409, message: 'the poll is closed' },
  announce_already_answered: { status: 409, message: 'the poll was already answered' },
  announce_answer_invalid: { status: 400, message: 'the answer does not fit the poll' },
  // amenities and reservations (spec comms §8)
  reservation_not_editable: { status: 409, message: 'the reservation status is not editable' },
  reservation_not_cancelable: { status: 409, message: 'the reservation status is not cancelable' },
  amenity_devices_without_qr: { status: 409, message: 'the amenity has unsupported devices without qr' },
  amenity_file_not_found: { status: 404, message: 'amenity file not found' },
  amenity_not_allowed_for_user: { status: 403, message: 'the amenity is not allowed for the user' },
  amenity_not_found: { status: 404, message: 'amenity not found' },
  amenity_person_limits: { status: 400, message: 'the number of persons is out of the amenity limits' },
  amenity_slot_mismatch: { status: 400, message: 'the time slot does not match the amenity time slots' },
  amenity_slot_not_in_future: { status: 400, message: 'the time slot is not in the future' },
  amenity_date_not_in_future: { status: 400, message: 'the reservation date must be in the future' },
  amenity_no_free_places: { status: 409, message: 'no free places' },
  amenity_inconsistent_slots: { status: 400, message: 'inconsistent time slots' },
  amenity_has_reservations: { status: 409, message: 'editing and deleting are prohibited while the amenity has reservations' },
  amenity_rule_without_qr: { status: 400, message: 'the access rule has devices without qr support' },
  /** A reservation still holding places (reserved, in use, inactive) cannot be deleted: cancel it first. */
  reservation_live: { status: 409, message: 'editing and deleting are prohibited' },
  // emergency alerts, lockdown and muster (issue 13)
  emergency_no_audio: { status: 400, message: 'the alert has no audio file' },
  emergency_no_devices: { status: 400, message: 'no device of the alert can be reached' },
  emergency_playing: { status: 409, message: 'the alert is playing' },
  emergency_not_playing: { status: 409, message: 'the alert is not playing' },
  lockdown_active: { status: 409, message: 'the group is already locked down' },
  lockdown_lifted: { status: 409, message: 'the lockdown is already lifted' },
  // IP blocking (issue 14)
  ip_banned: { status: 403, message: 'your ip address is banned' },
  ip_already_whitelisted: { status: 409, message: 'ip already in whitelist' },
  // two-factor sign-in (issue 14)
  two_factor_invalid_code: { status: 400, message: 'invalid two-factor code' },
  two_factor_already_enabled: { status: 409, message: 'two-factor sign-in is already on' },
  two_factor_not_enabled: { status: 409, message: 'two-factor sign-in is off' },
  two_factor_not_pending: { status: 409, message: 'two-factor enrolment was not started' },
  two_factor_required_by_role: { status: 409, message: 'two-factor sign-in is required by your role' },
  // single sign-on with OpenID Connect (issue 14)
  sso_failed: { status: 401, message: 'single sign-on failed' },
  sso_user_unknown: { status: 403, message: 'no user matches the single sign-on account' },
  sso_provider_unavailable: { status: 503, message: 'the sign-on provider is not available' },
  // integrations with Axxon One (spec entities §8; issue 14)
  integration_url_exists: { status: 409, message: 'an integration server with this url exists' },
  integration_unavailable: { status: 503, message: 'integration server not available' },
  integration_grpc_error: { status: 502, message: 'error connecting to the grpc server' },
  integration_not_allowed: { status: 403, message: 'integration not allowed for a user or device' },
  // several instances on one database: System info's worker actions aimed at another instance
  instance_not_found: { status: 404, message: 'the instance is not running' },
  instance_not_answering: { status: 504, message: 'the instance did not answer in time' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** Every distinct message a client may receive: the console must translate each one. */
export const ERROR_MESSAGES: readonly string[] = [...new Set(Object.values(ERRORS).map((e) => e.message))];

/** A field-level problem inside `details` of a 400 "invalid data sent". */
export interface FieldIssue {
  field: string;
  message: string;
  params?: Record<string, unknown>;
}

/** The error envelope of every failed call. */
export interface ErrorBody {
  message: string;
  code: string;
  details?: unknown[];
  request_id?: string;
}
