/** The shape of an app's API key (CONTRACT §19); keys themselves come from createKey in tests/support/factories. */
export const KEY_FORMAT = /^fes_app_[A-Za-z0-9]{8}_[A-Za-z0-9]{43}$/;
