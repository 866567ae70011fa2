package wlclient

// Opcodes of the requests and events this package uses, from each protocol's XML (the order of
// <request> and <event> elements in an interface). protocol_test.go checks them against the
// XML files Debian installs (wayland.xml, xdg-output); the wlr and virtual-keyboard ones are
// checked by the live tests, where a wrong opcode is a protocol error.
const (
	// wl_registry
	registryBind         = 0 // request bind(name uint, id new_id untyped)
	registryGlobal       = 0 // event global(name uint, interface string, version uint)
	registryGlobalRemove = 1 // event global_remove(name uint)

	// wl_shm, wl_shm_pool, wl_buffer
	shmCreatePool     = 0 // request create_pool(id new_id, fd fd, size int)
	shmPoolCreateBuf  = 0 // request create_buffer(id new_id, offset, width, height, stride int, format uint)
	shmPoolDestroy    = 1 // request destroy
	bufferDestroy     = 0 // request destroy
	shmFormatARGB8888 = 0
	shmFormatXRGB8888 = 1
	shmFormatABGR8888 = 0x34324241 // fourcc AB24
	shmFormatXBGR8888 = 0x34324258 // fourcc XB24

	// wl_output
	outputGeometry    = 0 // event geometry(x, y, physical_width, physical_height, subpixel int, make, model string, transform int)
	outputMode        = 1 // event mode(flags uint, width, height, refresh int)
	outputScale       = 3 // event scale(factor int), since 2
	outputName        = 4 // event name(name string), since 4
	outputDescription = 5 // event description(description string), since 4
	outputModeCurrent = 1 // wl_output.mode flag

	// zxdg_output_manager_v1, zxdg_output_v1
	xdgOutputManagerGet = 1 // request get_xdg_output(id new_id, output object)
	xdgOutputPosition   = 0 // event logical_position(x, y int)
	xdgOutputSize       = 1 // event logical_size(width, height int)
	xdgOutputName       = 3 // event name(name string), since 2
	xdgOutputDesc       = 4 // event description(description string), since 2

	// zwlr_screencopy_manager_v1, zwlr_screencopy_frame_v1
	screencopyCaptureRegion = 1 // request capture_output_region(frame new_id, overlay_cursor int, output object, x, y, w, h int)
	frameCopy               = 0 // request copy(buffer object)
	frameDestroy            = 1 // request destroy
	frameBuffer             = 0 // event buffer(format, width, height, stride uint)
	frameFlags              = 1 // event flags(flags uint)
	frameReady              = 2 // event ready(tv_sec_hi, tv_sec_lo, tv_nsec uint)
	frameFailed             = 3 // event failed
	frameFlagYInvert        = 1

	// zwlr_virtual_pointer_manager_v1, zwlr_virtual_pointer_v1
	pointerManagerCreate = 0 // request create_virtual_pointer(seat object, id new_id)
	pointerMotionAbs     = 1 // request motion_absolute(time, x, y, x_extent, y_extent uint)
	pointerButton        = 2 // request button(time, button, state uint)
	pointerFrame         = 4 // request frame
	pointerAxisSource    = 5 // request axis_source(axis_source uint)
	pointerAxisDiscrete  = 7 // request axis_discrete(time, axis uint, value fixed, discrete int)
	pointerDestroy       = 8 // request destroy
	axisVertical         = 0
	axisHorizontal       = 1
	axisSourceWheel      = 0

	// zwp_virtual_keyboard_manager_v1, zwp_virtual_keyboard_v1
	keyboardManagerCreate = 0 // request create_virtual_keyboard(seat object, id new_id)
	keyboardKeymap        = 0 // request keymap(format uint, fd fd, size uint)
	keyboardKey           = 1 // request key(time, key, state uint)
	keyboardModifiers     = 2 // request modifiers(depressed, latched, locked, group uint)
	keyboardDestroy       = 3 // request destroy
	keymapFormatXKBv1     = 1

	// zwlr_foreign_toplevel_manager_v1, zwlr_foreign_toplevel_handle_v1
	toplevelManagerToplevel = 0 // event toplevel(toplevel new_id)
	toplevelTitle           = 0 // event title(title string)
	toplevelAppID           = 1 // event app_id(app_id string)
	toplevelOutputEnter     = 2 // event output_enter(output object)
	toplevelOutputLeave     = 3 // event output_leave(output object)
	toplevelState           = 4 // event state(state array of uint)
	toplevelDone            = 5 // event done
	toplevelClosed          = 6 // event closed
	toplevelParent          = 7 // event parent(parent object), since 3
	toplevelSetMaximized    = 0 // request set_maximized
	toplevelUnsetMaximized  = 1 // request unset_maximized
	toplevelSetMinimized    = 2 // request set_minimized
	toplevelUnsetMinimized  = 3 // request unset_minimized
	toplevelActivate        = 4 // request activate(seat object)
	toplevelClose           = 5 // request close
	toplevelDestroy         = 7 // request destroy
	toplevelSetFullscreen   = 8 // request set_fullscreen(output object, nullable), since 2
	toplevelUnsetFullscreen = 9 // request unset_fullscreen, since 2
	toplevelStateMaximized  = 0 // the state enum
	toplevelStateMinimized  = 1
	toplevelStateActivated  = 2
	toplevelStateFullscreen = 3

	// zwlr_data_control_manager_v1 and its device, source and offer
	dataManagerCreateSource = 0 // request create_data_source(id new_id)
	dataManagerGetDevice    = 1 // request get_data_device(id new_id, seat object)
	dataDeviceSetSelection  = 0 // request set_selection(source object)
	dataDeviceDataOffer     = 0 // event data_offer(id new_id)
	dataDeviceSelection     = 1 // event selection(id object)
	dataDeviceFinished      = 2 // event finished
	dataSourceOffer         = 0 // request offer(mime_type string)
	dataSourceDestroy       = 1 // request destroy
	dataSourceSend          = 0 // event send(mime_type string, fd fd)
	dataSourceCancelled     = 1 // event cancelled
	dataOfferReceive        = 0 // request receive(mime_type string, fd fd)
	dataOfferDestroy        = 1 // request destroy
	dataOfferOffer          = 0 // event offer(mime_type string)

	// org_kde_kwin_fake_input (KDE's plasma-wayland-protocols, fake-input.xml)
	fakeAuthenticate    = 0  // request authenticate(application, reason string)
	fakeButton          = 2  // request button(button, state uint)
	fakeAxis            = 3  // request axis(axis uint, value fixed)
	fakeMotionAbsolute  = 9  // request pointer_motion_absolute(x, y fixed), since 3
	fakeKeyboardKey     = 10 // request keyboard_key(button, state uint), since 4
	fakeInputMinVersion = 4
)

// The globals this package binds, with the highest version it speaks.
const (
	ifShm             = "wl_shm"
	ifSeat            = "wl_seat"
	ifOutput          = "wl_output"
	ifXdgOutputMgr    = "zxdg_output_manager_v1"
	ifScreencopy      = "zwlr_screencopy_manager_v1"
	ifVirtualPointer  = "zwlr_virtual_pointer_manager_v1"
	ifVirtualKeyboard = "zwp_virtual_keyboard_manager_v1"
	ifDataControl     = "zwlr_data_control_manager_v1"
	ifToplevels       = "zwlr_foreign_toplevel_manager_v1"
	ifFakeInput       = "org_kde_kwin_fake_input"
)

var speaks = map[string]uint32{
	ifShm: 1, ifSeat: 1, ifOutput: 4, ifXdgOutputMgr: 3, ifScreencopy: 3,
	ifVirtualPointer: 2, ifVirtualKeyboard: 1, ifDataControl: 2, ifToplevels: 3,
	ifFakeInput: 4,
}
