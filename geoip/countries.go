// The country table of libGeoIP 1.6.12 (its GeoIP.c), in its numbering.

package geoip

// countryTable holds, a line for each country number a database stores
// (256, from 0), the two- and three-letter codes, the continent, and the
// name in ISO-8859-1 and in UTF-8, separated by tabs, as libGeoIP numbers
// them. One constant string: an array of their 1,280 strings was as many
// pointers among the program's variables, which the garbage collector
// reads at every cycle of every server, geoip configured or not.
const countryTable = "" +
	"--\t--\t--\tN/A\tN/A\n" +
	"AP\tAP\tAS\tAsia/Pacific Region\tAsia/Pacific Region\n" +
	"EU\tEU\tEU\tEurope\tEurope\n" +
	"AD\tAND\tEU\tAndorra\tAndorra\n" +
	"AE\tARE\tAS\tUnited Arab Emirates\tUnited Arab Emirates\n" +
	"AF\tAFG\tAS\tAfghanistan\tAfghanistan\n" +
	"AG\tATG\tNA\tAntigua and Barbuda\tAntigua and Barbuda\n" +
	"AI\tAIA\tNA\tAnguilla\tAnguilla\n" +
	"AL\tALB\tEU\tAlbania\tAlbania\n" +
	"AM\tARM\tAS\tArmenia\tArmenia\n" +
	"CW\tCUW\tNA\tCuracao\tCura\xc3\xa7ao\n" +
	"AO\tAGO\tAF\tAngola\tAngola\n" +
	"AQ\tATA\tAN\tAntarctica\tAntarctica\n" +
	"AR\tARG\tSA\tArgentina\tArgentina\n" +
	"AS\tASM\tOC\tAmerican Samoa\tAmerican Samoa\n" +
	"AT\tAUT\tEU\tAustria\tAustria\n" +
	"AU\tAUS\tOC\tAustralia\tAustralia\n" +
	"AW\tABW\tNA\tAruba\tAruba\n" +
	"AZ\tAZE\tAS\tAzerbaijan\tAzerbaijan\n" +
	"BA\tBIH\tEU\tBosnia and Herzegovina\tBosnia and Herzegovina\n" +
	"BB\tBRB\tNA\tBarbados\tBarbados\n" +
	"BD\tBGD\tAS\tBangladesh\tBangladesh\n" +
	"BE\tBEL\tEU\tBelgium\tBelgium\n" +
	"BF\tBFA\tAF\tBurkina Faso\tBurkina Faso\n" +
	"BG\tBGR\tEU\tBulgaria\tBulgaria\n" +
	"BH\tBHR\tAS\tBahrain\tBahrain\n" +
	"BI\tBDI\tAF\tBurundi\tBurundi\n" +
	"BJ\tBEN\tAF\tBenin\tBenin\n" +
	"BM\tBMU\tNA\tBermuda\tBermuda\n" +
	"BN\tBRN\tAS\tBrunei Darussalam\tBrunei Darussalam\n" +
	"BO\tBOL\tSA\tBolivia\tBolivia\n" +
	"BR\tBRA\tSA\tBrazil\tBrazil\n" +
	"BS\tBHS\tNA\tBahamas\tBahamas\n" +
	"BT\tBTN\tAS\tBhutan\tBhutan\n" +
	"BV\tBVT\tAN\tBouvet Island\tBouvet Island\n" +
	"BW\tBWA\tAF\tBotswana\tBotswana\n" +
	"BY\tBLR\tEU\tBelarus\tBelarus\n" +
	"BZ\tBLZ\tNA\tBelize\tBelize\n" +
	"CA\tCAN\tNA\tCanada\tCanada\n" +
	"CC\tCCK\tAS\tCocos (Keeling) Islands\tCocos (Keeling) Islands\n" +
	"CD\tCOD\tAF\tCongo, The Democratic Republic of the\tCongo, The Democratic Republic of the\n" +
	"CF\tCAF\tAF\tCentral African Republic\tCentral African Republic\n" +
	"CG\tCOG\tAF\tCongo\tCongo\n" +
	"CH\tCHE\tEU\tSwitzerland\tSwitzerland\n" +
	"CI\tCIV\tAF\tCote D'Ivoire\tCote D'Ivoire\n" +
	"CK\tCOK\tOC\tCook Islands\tCook Islands\n" +
	"CL\tCHL\tSA\tChile\tChile\n" +
	"CM\tCMR\tAF\tCameroon\tCameroon\n" +
	"CN\tCHN\tAS\tChina\tChina\n" +
	"CO\tCOL\tSA\tColombia\tColombia\n" +
	"CR\tCRI\tNA\tCosta Rica\tCosta Rica\n" +
	"CU\tCUB\tNA\tCuba\tCuba\n" +
	"CV\tCPV\tAF\tCape Verde\tCape Verde\n" +
	"CX\tCXR\tAS\tChristmas Island\tChristmas Island\n" +
	"CY\tCYP\tAS\tCyprus\tCyprus\n" +
	"CZ\tCZE\tEU\tCzech Republic\tCzech Republic\n" +
	"DE\tDEU\tEU\tGermany\tGermany\n" +
	"DJ\tDJI\tAF\tDjibouti\tDjibouti\n" +
	"DK\tDNK\tEU\tDenmark\tDenmark\n" +
	"DM\tDMA\tNA\tDominica\tDominica\n" +
	"DO\tDOM\tNA\tDominican Republic\tDominican Republic\n" +
	"DZ\tDZA\tAF\tAlgeria\tAlgeria\n" +
	"EC\tECU\tSA\tEcuador\tEcuador\n" +
	"EE\tEST\tEU\tEstonia\tEstonia\n" +
	"EG\tEGY\tAF\tEgypt\tEgypt\n" +
	"EH\tESH\tAF\tWestern Sahara\tWestern Sahara\n" +
	"ER\tERI\tAF\tEritrea\tEritrea\n" +
	"ES\tESP\tEU\tSpain\tSpain\n" +
	"ET\tETH\tAF\tEthiopia\tEthiopia\n" +
	"FI\tFIN\tEU\tFinland\tFinland\n" +
	"FJ\tFJI\tOC\tFiji\tFiji\n" +
	"FK\tFLK\tSA\tFalkland Islands (Malvinas)\tFalkland Islands (Malvinas)\n" +
	"FM\tFSM\tOC\tMicronesia, Federated States of\tMicronesia, Federated States of\n" +
	"FO\tFRO\tEU\tFaroe Islands\tFaroe Islands\n" +
	"FR\tFRA\tEU\tFrance\tFrance\n" +
	"SX\tSXM\tNA\tSint Maarten (Dutch part)\tSint Maarten (Dutch part)\n" +
	"GA\tGAB\tAF\tGabon\tGabon\n" +
	"GB\tGBR\tEU\tUnited Kingdom\tUnited Kingdom\n" +
	"GD\tGRD\tNA\tGrenada\tGrenada\n" +
	"GE\tGEO\tAS\tGeorgia\tGeorgia\n" +
	"GF\tGUF\tSA\tFrench Guiana\tFrench Guiana\n" +
	"GH\tGHA\tAF\tGhana\tGhana\n" +
	"GI\tGIB\tEU\tGibraltar\tGibraltar\n" +
	"GL\tGRL\tNA\tGreenland\tGreenland\n" +
	"GM\tGMB\tAF\tGambia\tGambia\n" +
	"GN\tGIN\tAF\tGuinea\tGuinea\n" +
	"GP\tGLP\tNA\tGuadeloupe\tGuadeloupe\n" +
	"GQ\tGNQ\tAF\tEquatorial Guinea\tEquatorial Guinea\n" +
	"GR\tGRC\tEU\tGreece\tGreece\n" +
	"GS\tSGS\tAN\tSouth Georgia and the South Sandwich Islands\tSouth Georgia and the South Sandwich Islands\n" +
	"GT\tGTM\tNA\tGuatemala\tGuatemala\n" +
	"GU\tGUM\tOC\tGuam\tGuam\n" +
	"GW\tGNB\tAF\tGuinea-Bissau\tGuinea-Bissau\n" +
	"GY\tGUY\tSA\tGuyana\tGuyana\n" +
	"HK\tHKG\tAS\tHong Kong\tHong Kong\n" +
	"HM\tHMD\tAN\tHeard Island and McDonald Islands\tHeard Island and McDonald Islands\n" +
	"HN\tHND\tNA\tHonduras\tHonduras\n" +
	"HR\tHRV\tEU\tCroatia\tCroatia\n" +
	"HT\tHTI\tNA\tHaiti\tHaiti\n" +
	"HU\tHUN\tEU\tHungary\tHungary\n" +
	"ID\tIDN\tAS\tIndonesia\tIndonesia\n" +
	"IE\tIRL\tEU\tIreland\tIreland\n" +
	"IL\tISR\tAS\tIsrael\tIsrael\n" +
	"IN\tIND\tAS\tIndia\tIndia\n" +
	"IO\tIOT\tAS\tBritish Indian Ocean Territory\tBritish Indian Ocean Territory\n" +
	"IQ\tIRQ\tAS\tIraq\tIraq\n" +
	"IR\tIRN\tAS\tIran, Islamic Republic of\tIran, Islamic Republic of\n" +
	"IS\tISL\tEU\tIceland\tIceland\n" +
	"IT\tITA\tEU\tItaly\tItaly\n" +
	"JM\tJAM\tNA\tJamaica\tJamaica\n" +
	"JO\tJOR\tAS\tJordan\tJordan\n" +
	"JP\tJPN\tAS\tJapan\tJapan\n" +
	"KE\tKEN\tAF\tKenya\tKenya\n" +
	"KG\tKGZ\tAS\tKyrgyzstan\tKyrgyzstan\n" +
	"KH\tKHM\tAS\tCambodia\tCambodia\n" +
	"KI\tKIR\tOC\tKiribati\tKiribati\n" +
	"KM\tCOM\tAF\tComoros\tComoros\n" +
	"KN\tKNA\tNA\tSaint Kitts and Nevis\tSaint Kitts and Nevis\n" +
	"KP\tPRK\tAS\tKorea, Democratic People's Republic of\tKorea, Democratic People's Republic of\n" +
	"KR\tKOR\tAS\tKorea, Republic of\tKorea, Republic of\n" +
	"KW\tKWT\tAS\tKuwait\tKuwait\n" +
	"KY\tCYM\tNA\tCayman Islands\tCayman Islands\n" +
	"KZ\tKAZ\tAS\tKazakhstan\tKazakhstan\n" +
	"LA\tLAO\tAS\tLao People's Democratic Republic\tLao People's Democratic Republic\n" +
	"LB\tLBN\tAS\tLebanon\tLebanon\n" +
	"LC\tLCA\tNA\tSaint Lucia\tSaint Lucia\n" +
	"LI\tLIE\tEU\tLiechtenstein\tLiechtenstein\n" +
	"LK\tLKA\tAS\tSri Lanka\tSri Lanka\n" +
	"LR\tLBR\tAF\tLiberia\tLiberia\n" +
	"LS\tLSO\tAF\tLesotho\tLesotho\n" +
	"LT\tLTU\tEU\tLithuania\tLithuania\n" +
	"LU\tLUX\tEU\tLuxembourg\tLuxembourg\n" +
	"LV\tLVA\tEU\tLatvia\tLatvia\n" +
	"LY\tLBY\tAF\tLibya\tLibya\n" +
	"MA\tMAR\tAF\tMorocco\tMorocco\n" +
	"MC\tMCO\tEU\tMonaco\tMonaco\n" +
	"MD\tMDA\tEU\tMoldova, Republic of\tMoldova, Republic of\n" +
	"MG\tMDG\tAF\tMadagascar\tMadagascar\n" +
	"MH\tMHL\tOC\tMarshall Islands\tMarshall Islands\n" +
	"MK\tMKD\tEU\tMacedonia\tMacedonia\n" +
	"ML\tMLI\tAF\tMali\tMali\n" +
	"MM\tMMR\tAS\tMyanmar\tMyanmar\n" +
	"MN\tMNG\tAS\tMongolia\tMongolia\n" +
	"MO\tMAC\tAS\tMacau\tMacau\n" +
	"MP\tMNP\tOC\tNorthern Mariana Islands\tNorthern Mariana Islands\n" +
	"MQ\tMTQ\tNA\tMartinique\tMartinique\n" +
	"MR\tMRT\tAF\tMauritania\tMauritania\n" +
	"MS\tMSR\tNA\tMontserrat\tMontserrat\n" +
	"MT\tMLT\tEU\tMalta\tMalta\n" +
	"MU\tMUS\tAF\tMauritius\tMauritius\n" +
	"MV\tMDV\tAS\tMaldives\tMaldives\n" +
	"MW\tMWI\tAF\tMalawi\tMalawi\n" +
	"MX\tMEX\tNA\tMexico\tMexico\n" +
	"MY\tMYS\tAS\tMalaysia\tMalaysia\n" +
	"MZ\tMOZ\tAF\tMozambique\tMozambique\n" +
	"NA\tNAM\tAF\tNamibia\tNamibia\n" +
	"NC\tNCL\tOC\tNew Caledonia\tNew Caledonia\n" +
	"NE\tNER\tAF\tNiger\tNiger\n" +
	"NF\tNFK\tOC\tNorfolk Island\tNorfolk Island\n" +
	"NG\tNGA\tAF\tNigeria\tNigeria\n" +
	"NI\tNIC\tNA\tNicaragua\tNicaragua\n" +
	"NL\tNLD\tEU\tNetherlands\tNetherlands\n" +
	"NO\tNOR\tEU\tNorway\tNorway\n" +
	"NP\tNPL\tAS\tNepal\tNepal\n" +
	"NR\tNRU\tOC\tNauru\tNauru\n" +
	"NU\tNIU\tOC\tNiue\tNiue\n" +
	"NZ\tNZL\tOC\tNew Zealand\tNew Zealand\n" +
	"OM\tOMN\tAS\tOman\tOman\n" +
	"PA\tPAN\tNA\tPanama\tPanama\n" +
	"PE\tPER\tSA\tPeru\tPeru\n" +
	"PF\tPYF\tOC\tFrench Polynesia\tFrench Polynesia\n" +
	"PG\tPNG\tOC\tPapua New Guinea\tPapua New Guinea\n" +
	"PH\tPHL\tAS\tPhilippines\tPhilippines\n" +
	"PK\tPAK\tAS\tPakistan\tPakistan\n" +
	"PL\tPOL\tEU\tPoland\tPoland\n" +
	"PM\tSPM\tNA\tSaint Pierre and Miquelon\tSaint Pierre and Miquelon\n" +
	"PN\tPCN\tOC\tPitcairn Islands\tPitcairn Islands\n" +
	"PR\tPRI\tNA\tPuerto Rico\tPuerto Rico\n" +
	"PS\tPSE\tAS\tPalestinian Territory\tPalestinian Territory\n" +
	"PT\tPRT\tEU\tPortugal\tPortugal\n" +
	"PW\tPLW\tOC\tPalau\tPalau\n" +
	"PY\tPRY\tSA\tParaguay\tParaguay\n" +
	"QA\tQAT\tAS\tQatar\tQatar\n" +
	"RE\tREU\tAF\tReunion\tReunion\n" +
	"RO\tROU\tEU\tRomania\tRomania\n" +
	"RU\tRUS\tEU\tRussian Federation\tRussian Federation\n" +
	"RW\tRWA\tAF\tRwanda\tRwanda\n" +
	"SA\tSAU\tAS\tSaudi Arabia\tSaudi Arabia\n" +
	"SB\tSLB\tOC\tSolomon Islands\tSolomon Islands\n" +
	"SC\tSYC\tAF\tSeychelles\tSeychelles\n" +
	"SD\tSDN\tAF\tSudan\tSudan\n" +
	"SE\tSWE\tEU\tSweden\tSweden\n" +
	"SG\tSGP\tAS\tSingapore\tSingapore\n" +
	"SH\tSHN\tAF\tSaint Helena\tSaint Helena\n" +
	"SI\tSVN\tEU\tSlovenia\tSlovenia\n" +
	"SJ\tSJM\tEU\tSvalbard and Jan Mayen\tSvalbard and Jan Mayen\n" +
	"SK\tSVK\tEU\tSlovakia\tSlovakia\n" +
	"SL\tSLE\tAF\tSierra Leone\tSierra Leone\n" +
	"SM\tSMR\tEU\tSan Marino\tSan Marino\n" +
	"SN\tSEN\tAF\tSenegal\tSenegal\n" +
	"SO\tSOM\tAF\tSomalia\tSomalia\n" +
	"SR\tSUR\tSA\tSuriname\tSuriname\n" +
	"ST\tSTP\tAF\tSao Tome and Principe\tSao Tome and Principe\n" +
	"SV\tSLV\tNA\tEl Salvador\tEl Salvador\n" +
	"SY\tSYR\tAS\tSyrian Arab Republic\tSyrian Arab Republic\n" +
	"SZ\tSWZ\tAF\tSwaziland\tSwaziland\n" +
	"TC\tTCA\tNA\tTurks and Caicos Islands\tTurks and Caicos Islands\n" +
	"TD\tTCD\tAF\tChad\tChad\n" +
	"TF\tATF\tAN\tFrench Southern Territories\tFrench Southern Territories\n" +
	"TG\tTGO\tAF\tTogo\tTogo\n" +
	"TH\tTHA\tAS\tThailand\tThailand\n" +
	"TJ\tTJK\tAS\tTajikistan\tTajikistan\n" +
	"TK\tTKL\tOC\tTokelau\tTokelau\n" +
	"TM\tTKM\tAS\tTurkmenistan\tTurkmenistan\n" +
	"TN\tTUN\tAF\tTunisia\tTunisia\n" +
	"TO\tTON\tOC\tTonga\tTonga\n" +
	"TL\tTLS\tAS\tTimor-Leste\tTimor-Leste\n" +
	"TR\tTUR\tEU\tTurkey\tTurkey\n" +
	"TT\tTTO\tNA\tTrinidad and Tobago\tTrinidad and Tobago\n" +
	"TV\tTUV\tOC\tTuvalu\tTuvalu\n" +
	"TW\tTWN\tAS\tTaiwan\tTaiwan\n" +
	"TZ\tTZA\tAF\tTanzania, United Republic of\tTanzania, United Republic of\n" +
	"UA\tUKR\tEU\tUkraine\tUkraine\n" +
	"UG\tUGA\tAF\tUganda\tUganda\n" +
	"UM\tUMI\tOC\tUnited States Minor Outlying Islands\tUnited States Minor Outlying Islands\n" +
	"US\tUSA\tNA\tUnited States\tUnited States\n" +
	"UY\tURY\tSA\tUruguay\tUruguay\n" +
	"UZ\tUZB\tAS\tUzbekistan\tUzbekistan\n" +
	"VA\tVAT\tEU\tHoly See (Vatican City State)\tHoly See (Vatican City State)\n" +
	"VC\tVCT\tNA\tSaint Vincent and the Grenadines\tSaint Vincent and the Grenadines\n" +
	"VE\tVEN\tSA\tVenezuela\tVenezuela\n" +
	"VG\tVGB\tNA\tVirgin Islands, British\tVirgin Islands, British\n" +
	"VI\tVIR\tNA\tVirgin Islands, U.S.\tVirgin Islands, U.S.\n" +
	"VN\tVNM\tAS\tVietnam\tVietnam\n" +
	"VU\tVUT\tOC\tVanuatu\tVanuatu\n" +
	"WF\tWLF\tOC\tWallis and Futuna\tWallis and Futuna\n" +
	"WS\tWSM\tOC\tSamoa\tSamoa\n" +
	"YE\tYEM\tAS\tYemen\tYemen\n" +
	"YT\tMYT\tAF\tMayotte\tMayotte\n" +
	"RS\tSRB\tEU\tSerbia\tSerbia\n" +
	"ZA\tZAF\tAF\tSouth Africa\tSouth Africa\n" +
	"ZM\tZMB\tAF\tZambia\tZambia\n" +
	"ME\tMNE\tEU\tMontenegro\tMontenegro\n" +
	"ZW\tZWE\tAF\tZimbabwe\tZimbabwe\n" +
	"A1\tA1\t--\tAnonymous Proxy\tAnonymous Proxy\n" +
	"A2\tA2\t--\tSatellite Provider\tSatellite Provider\n" +
	"O1\tO1\t--\tOther\tOther\n" +
	"AX\tALA\tEU\tAland Islands\tAland Islands\n" +
	"GG\tGGY\tEU\tGuernsey\tGuernsey\n" +
	"IM\tIMN\tEU\tIsle of Man\tIsle of Man\n" +
	"JE\tJEY\tEU\tJersey\tJersey\n" +
	"BL\tBLM\tNA\tSaint Barthelemy\tSaint Barthelemy\n" +
	"MF\tMAF\tNA\tSaint Martin\tSaint Martin\n" +
	"BQ\tBES\tNA\tBonaire, Saint Eustatius and Saba\tBonaire, Saint Eustatius and Saba\n" +
	"SS\tSSD\tAF\tSouth Sudan\tSouth Sudan\n" +
	"O1\tO1\t--\tOther\tOther\n"
