package adminwire

// APIHeader is set on every answer of the admin API, so that a client can
// tell it from another service that also answers JSON.
const APIHeader = "Hookrelay-Api"

// APIVersion is the value of APIHeader: the version of the API's paths
// (/api/v1/) and of the bodies in this package.
const APIVersion = "v1"
