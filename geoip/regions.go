// Region names of libGeoIP 1.6.12 (its regionName.c): FIPS 10-4 names, and
// ISO 3166-2 ones for the United States and Canada, as
// GeoIP_region_name_by_code returns them.

package geoip

// regionTable holds, sorted by code (a country code followed by a region
// code of two characters), each region's code and name on a line of its
// own. Static data rather than a map, which was built at every start of
// the server (0.3 ms, 320 KB of heap) for a module few configurations
// load; and one string rather than an array of four thousand strings,
// whose pointers the garbage collector read through at every cycle of
// every server, geoip loaded or not (a tenth of a cycle's work serving a
// small static file: compress README, "Instructions per request").
const regionTable = "" +
	"AD03Encamp\n" +
	"AD04La Massana\n" +
	"AD05Ordino\n" +
	"AD06Sant Julia de Loria\n" +
	"AD07Andorra la Vella\n" +
	"AD08Escaldes-Engordany\n" +
	"AE01Abu Dhabi\n" +
	"AE02Ajman\n" +
	"AE03Dubai\n" +
	"AE04Fujairah\n" +
	"AE05Ras Al Khaimah\n" +
	"AE06Sharjah\n" +
	"AE07Umm Al Quwain\n" +
	"AF01Badakhshan\n" +
	"AF02Badghis\n" +
	"AF03Baghlan\n" +
	"AF05Bamian\n" +
	"AF06Farah\n" +
	"AF07Faryab\n" +
	"AF08Ghazni\n" +
	"AF09Ghowr\n" +
	"AF10Helmand\n" +
	"AF11Herat\n" +
	"AF13Kabol\n" +
	"AF14Kapisa\n" +
	"AF17Lowgar\n" +
	"AF18Nangarhar\n" +
	"AF19Nimruz\n" +
	"AF23Kandahar\n" +
	"AF24Kondoz\n" +
	"AF26Takhar\n" +
	"AF27Vardak\n" +
	"AF28Zabol\n" +
	"AF29Paktika\n" +
	"AF30Balkh\n" +
	"AF31Jowzjan\n" +
	"AF32Samangan\n" +
	"AF33Sar-e Pol\n" +
	"AF34Konar\n" +
	"AF35Laghman\n" +
	"AF36Paktia\n" +
	"AF37Khowst\n" +
	"AF38Nurestan\n" +
	"AF39Oruzgan\n" +
	"AF40Parvan\n" +
	"AF41Daykondi\n" +
	"AF42Panjshir\n" +
	"AG01Barbuda\n" +
	"AG03Saint George\n" +
	"AG04Saint John\n" +
	"AG05Saint Mary\n" +
	"AG06Saint Paul\n" +
	"AG07Saint Peter\n" +
	"AG08Saint Philip\n" +
	"AG09Redonda\n" +
	"AL40Berat\n" +
	"AL41Diber\n" +
	"AL42Durres\n" +
	"AL43Elbasan\n" +
	"AL44Fier\n" +
	"AL45Gjirokaster\n" +
	"AL46Korce\n" +
	"AL47Kukes\n" +
	"AL48Lezhe\n" +
	"AL49Shkoder\n" +
	"AL50Tirane\n" +
	"AL51Vlore\n" +
	"AM01Aragatsotn\n" +
	"AM02Ararat\n" +
	"AM03Armavir\n" +
	"AM04Geghark'unik'\n" +
	"AM05Kotayk'\n" +
	"AM06Lorri\n" +
	"AM07Shirak\n" +
	"AM08Syunik'\n" +
	"AM09Tavush\n" +
	"AM10Vayots' Dzor\n" +
	"AM11Yerevan\n" +
	"AO01Benguela\n" +
	"AO02Bie\n" +
	"AO03Cabinda\n" +
	"AO04Cuando Cubango\n" +
	"AO05Cuanza Norte\n" +
	"AO06Cuanza Sul\n" +
	"AO07Cunene\n" +
	"AO08Huambo\n" +
	"AO09Huila\n" +
	"AO12Malanje\n" +
	"AO13Namibe\n" +
	"AO14Moxico\n" +
	"AO15Uige\n" +
	"AO16Zaire\n" +
	"AO17Lunda Norte\n" +
	"AO18Lunda Sul\n" +
	"AO19Bengo\n" +
	"AO20Luanda\n" +
	"AR01Buenos Aires\n" +
	"AR02Catamarca\n" +
	"AR03Chaco\n" +
	"AR04Chubut\n" +
	"AR05Cordoba\n" +
	"AR06Corrientes\n" +
	"AR07Distrito Federal\n" +
	"AR08Entre Rios\n" +
	"AR09Formosa\n" +
	"AR10Jujuy\n" +
	"AR11La Pampa\n" +
	"AR12La Rioja\n" +
	"AR13Mendoza\n" +
	"AR14Misiones\n" +
	"AR15Neuquen\n" +
	"AR16Rio Negro\n" +
	"AR17Salta\n" +
	"AR18San Juan\n" +
	"AR19San Luis\n" +
	"AR20Santa Cruz\n" +
	"AR21Santa Fe\n" +
	"AR22Santiago del Estero\n" +
	"AR23Tierra del Fuego\n" +
	"AR24Tucuman\n" +
	"AT01Burgenland\n" +
	"AT02Karnten\n" +
	"AT03Niederosterreich\n" +
	"AT04Oberosterreich\n" +
	"AT05Salzburg\n" +
	"AT06Steiermark\n" +
	"AT07Tirol\n" +
	"AT08Vorarlberg\n" +
	"AT09Wien\n" +
	"AU01Australian Capital Territory\n" +
	"AU02New South Wales\n" +
	"AU03Northern Territory\n" +
	"AU04Queensland\n" +
	"AU05South Australia\n" +
	"AU06Tasmania\n" +
	"AU07Victoria\n" +
	"AU08Western Australia\n" +
	"AZ01Abseron\n" +
	"AZ02Agcabadi\n" +
	"AZ03Agdam\n" +
	"AZ04Agdas\n" +
	"AZ05Agstafa\n" +
	"AZ06Agsu\n" +
	"AZ07Ali Bayramli\n" +
	"AZ08Astara\n" +
	"AZ09Baki\n" +
	"AZ10Balakan\n" +
	"AZ11Barda\n" +
	"AZ12Beylaqan\n" +
	"AZ13Bilasuvar\n" +
	"AZ14Cabrayil\n" +
	"AZ15Calilabad\n" +
	"AZ16Daskasan\n" +
	"AZ17Davaci\n" +
	"AZ18Fuzuli\n" +
	"AZ19Gadabay\n" +
	"AZ20Ganca\n" +
	"AZ21Goranboy\n" +
	"AZ22Goycay\n" +
	"AZ23Haciqabul\n" +
	"AZ24Imisli\n" +
	"AZ25Ismayilli\n" +
	"AZ26Kalbacar\n" +
	"AZ27Kurdamir\n" +
	"AZ28Lacin\n" +
	"AZ29Lankaran\n" +
	"AZ30Lankaran\n" +
	"AZ31Lerik\n" +
	"AZ32Masalli\n" +
	"AZ33Mingacevir\n" +
	"AZ34Naftalan\n" +
	"AZ35Naxcivan\n" +
	"AZ36Neftcala\n" +
	"AZ37Oguz\n" +
	"AZ38Qabala\n" +
	"AZ39Qax\n" +
	"AZ40Qazax\n" +
	"AZ41Qobustan\n" +
	"AZ42Quba\n" +
	"AZ43Qubadli\n" +
	"AZ44Qusar\n" +
	"AZ45Saatli\n" +
	"AZ46Sabirabad\n" +
	"AZ47Saki\n" +
	"AZ48Saki\n" +
	"AZ49Salyan\n" +
	"AZ50Samaxi\n" +
	"AZ51Samkir\n" +
	"AZ52Samux\n" +
	"AZ53Siyazan\n" +
	"AZ54Sumqayit\n" +
	"AZ55Susa\n" +
	"AZ56Susa\n" +
	"AZ57Tartar\n" +
	"AZ58Tovuz\n" +
	"AZ59Ucar\n" +
	"AZ60Xacmaz\n" +
	"AZ61Xankandi\n" +
	"AZ62Xanlar\n" +
	"AZ63Xizi\n" +
	"AZ64Xocali\n" +
	"AZ65Xocavand\n" +
	"AZ66Yardimli\n" +
	"AZ67Yevlax\n" +
	"AZ68Yevlax\n" +
	"AZ69Zangilan\n" +
	"AZ70Zaqatala\n" +
	"AZ71Zardab\n" +
	"BA01Federation of Bosnia and Herzegovina\n" +
	"BA02Republika Srpska\n" +
	"BA03Brcko District\n" +
	"BB01Christ Church\n" +
	"BB02Saint Andrew\n" +
	"BB03Saint George\n" +
	"BB04Saint James\n" +
	"BB05Saint John\n" +
	"BB06Saint Joseph\n" +
	"BB07Saint Lucy\n" +
	"BB08Saint Michael\n" +
	"BB09Saint Peter\n" +
	"BB10Saint Philip\n" +
	"BB11Saint Thomas\n" +
	"BD81Dhaka\n" +
	"BD82Khulna\n" +
	"BD83Rajshahi\n" +
	"BD84Chittagong\n" +
	"BD85Barisal\n" +
	"BD86Sylhet\n" +
	"BD87Rangpur\n" +
	"BE01Antwerpen\n" +
	"BE03Hainaut\n" +
	"BE04Liege\n" +
	"BE05Limburg\n" +
	"BE06Luxembourg\n" +
	"BE07Namur\n" +
	"BE08Oost-Vlaanderen\n" +
	"BE09West-Vlaanderen\n" +
	"BE10Brabant Wallon\n" +
	"BE11Brussels Hoofdstedelijk Gewest\n" +
	"BE12Vlaams-Brabant\n" +
	"BE13Flanders\n" +
	"BE14Wallonia\n" +
	"BF15Bam\n" +
	"BF19Boulkiemde\n" +
	"BF20Ganzourgou\n" +
	"BF21Gnagna\n" +
	"BF28Kouritenga\n" +
	"BF33Oudalan\n" +
	"BF34Passore\n" +
	"BF36Sanguie\n" +
	"BF40Soum\n" +
	"BF42Tapoa\n" +
	"BF44Zoundweogo\n" +
	"BF45Bale\n" +
	"BF46Banwa\n" +
	"BF47Bazega\n" +
	"BF48Bougouriba\n" +
	"BF49Boulgou\n" +
	"BF50Gourma\n" +
	"BF51Houet\n" +
	"BF52Ioba\n" +
	"BF53Kadiogo\n" +
	"BF54Kenedougou\n" +
	"BF55Komoe\n" +
	"BF56Komondjari\n" +
	"BF57Kompienga\n" +
	"BF58Kossi\n" +
	"BF59Koulpelogo\n" +
	"BF60Kourweogo\n" +
	"BF61Leraba\n" +
	"BF62Loroum\n" +
	"BF63Mouhoun\n" +
	"BF64Namentenga\n" +
	"BF65Naouri\n" +
	"BF66Nayala\n" +
	"BF67Noumbiel\n" +
	"BF68Oubritenga\n" +
	"BF69Poni\n" +
	"BF70Sanmatenga\n" +
	"BF71Seno\n" +
	"BF72Sissili\n" +
	"BF73Sourou\n" +
	"BF74Tuy\n" +
	"BF75Yagha\n" +
	"BF76Yatenga\n" +
	"BF77Ziro\n" +
	"BF78Zondoma\n" +
	"BG33Mikhaylovgrad\n" +
	"BG38Blagoevgrad\n" +
	"BG39Burgas\n" +
	"BG40Dobrich\n" +
	"BG41Gabrovo\n" +
	"BG42Grad Sofiya\n" +
	"BG43Khaskovo\n" +
	"BG44Kurdzhali\n" +
	"BG45Kyustendil\n" +
	"BG46Lovech\n" +
	"BG47Montana\n" +
	"BG48Pazardzhik\n" +
	"BG49Pernik\n" +
	"BG50Pleven\n" +
	"BG51Plovdiv\n" +
	"BG52Razgrad\n" +
	"BG53Ruse\n" +
	"BG54Shumen\n" +
	"BG55Silistra\n" +
	"BG56Sliven\n" +
	"BG57Smolyan\n" +
	"BG58Sofiya\n" +
	"BG59Stara Zagora\n" +
	"BG60Turgovishte\n" +
	"BG61Varna\n" +
	"BG62Veliko Turnovo\n" +
	"BG63Vidin\n" +
	"BG64Vratsa\n" +
	"BG65Yambol\n" +
	"BH01Al Hadd\n" +
	"BH02Al Manamah\n" +
	"BH05Jidd Hafs\n" +
	"BH06Sitrah\n" +
	"BH08Al Mintaqah al Gharbiyah\n" +
	"BH09Mintaqat Juzur Hawar\n" +
	"BH10Al Mintaqah ash Shamaliyah\n" +
	"BH11Al Mintaqah al Wusta\n" +
	"BH12Madinat\n" +
	"BH13Ar Rifa\n" +
	"BH14Madinat Hamad\n" +
	"BH15Al Muharraq\n" +
	"BH16Al Asimah\n" +
	"BH17Al Janubiyah\n" +
	"BH18Ash Shamaliyah\n" +
	"BH19Al Wusta\n" +
	"BI02Bujumbura\n" +
	"BI09Bubanza\n" +
	"BI10Bururi\n" +
	"BI11Cankuzo\n" +
	"BI12Cibitoke\n" +
	"BI13Gitega\n" +
	"BI14Karuzi\n" +
	"BI15Kayanza\n" +
	"BI16Kirundo\n" +
	"BI17Makamba\n" +
	"BI18Muyinga\n" +
	"BI19Ngozi\n" +
	"BI20Rutana\n" +
	"BI21Ruyigi\n" +
	"BI22Muramvya\n" +
	"BI23Mwaro\n" +
	"BJ07Alibori\n" +
	"BJ08Atakora\n" +
	"BJ09Atlanyique\n" +
	"BJ10Borgou\n" +
	"BJ11Collines\n" +
	"BJ12Kouffo\n" +
	"BJ13Donga\n" +
	"BJ14Littoral\n" +
	"BJ15Mono\n" +
	"BJ16Oueme\n" +
	"BJ17Plateau\n" +
	"BJ18Zou\n" +
	"BM01Devonshire\n" +
	"BM02Hamilton\n" +
	"BM03Hamilton\n" +
	"BM04Paget\n" +
	"BM05Pembroke\n" +
	"BM06Saint George\n" +
	"BM07Saint George's\n" +
	"BM08Sandys\n" +
	"BM09Smiths\n" +
	"BM10Southampton\n" +
	"BM11Warwick\n" +
	"BN07Alibori\n" +
	"BN08Belait\n" +
	"BN09Brunei and Muara\n" +
	"BN10Temburong\n" +
	"BN11Collines\n" +
	"BN12Kouffo\n" +
	"BN13Donga\n" +
	"BN14Littoral\n" +
	"BN15Tutong\n" +
	"BN16Oueme\n" +
	"BN17Plateau\n" +
	"BN18Zou\n" +
	"BO01Chuquisaca\n" +
	"BO02Cochabamba\n" +
	"BO03El Beni\n" +
	"BO04La Paz\n" +
	"BO05Oruro\n" +
	"BO06Pando\n" +
	"BO07Potosi\n" +
	"BO08Santa Cruz\n" +
	"BO09Tarija\n" +
	"BR01Acre\n" +
	"BR02Alagoas\n" +
	"BR03Amapa\n" +
	"BR04Amazonas\n" +
	"BR05Bahia\n" +
	"BR06Ceara\n" +
	"BR07Distrito Federal\n" +
	"BR08Espirito Santo\n" +
	"BR11Mato Grosso do Sul\n" +
	"BR13Maranhao\n" +
	"BR14Mato Grosso\n" +
	"BR15Minas Gerais\n" +
	"BR16Para\n" +
	"BR17Paraiba\n" +
	"BR18Parana\n" +
	"BR20Piaui\n" +
	"BR21Rio de Janeiro\n" +
	"BR22Rio Grande do Norte\n" +
	"BR23Rio Grande do Sul\n" +
	"BR24Rondonia\n" +
	"BR25Roraima\n" +
	"BR26Santa Catarina\n" +
	"BR27Sao Paulo\n" +
	"BR28Sergipe\n" +
	"BR29Goias\n" +
	"BR30Pernambuco\n" +
	"BR31Tocantins\n" +
	"BS05Bimini\n" +
	"BS06Cat Island\n" +
	"BS10Exuma\n" +
	"BS13Inagua\n" +
	"BS15Long Island\n" +
	"BS16Mayaguana\n" +
	"BS18Ragged Island\n" +
	"BS22Harbour Island\n" +
	"BS23New Providence\n" +
	"BS24Acklins and Crooked Islands\n" +
	"BS25Freeport\n" +
	"BS26Fresh Creek\n" +
	"BS27Governor's Harbour\n" +
	"BS28Green Turtle Cay\n" +
	"BS29High Rock\n" +
	"BS30Kemps Bay\n" +
	"BS31Marsh Harbour\n" +
	"BS32Nichollstown and Berry Islands\n" +
	"BS33Rock Sound\n" +
	"BS34Sandy Point\n" +
	"BS35San Salvador and Rum Cay\n" +
	"BT05Bumthang\n" +
	"BT06Chhukha\n" +
	"BT07Chirang\n" +
	"BT08Daga\n" +
	"BT09Geylegphug\n" +
	"BT10Ha\n" +
	"BT11Lhuntshi\n" +
	"BT12Mongar\n" +
	"BT13Paro\n" +
	"BT14Pemagatsel\n" +
	"BT15Punakha\n" +
	"BT16Samchi\n" +
	"BT17Samdrup\n" +
	"BT18Shemgang\n" +
	"BT19Tashigang\n" +
	"BT20Thimphu\n" +
	"BT21Tongsa\n" +
	"BT22Wangdi Phodrang\n" +
	"BW01Central\n" +
	"BW03Ghanzi\n" +
	"BW04Kgalagadi\n" +
	"BW05Kgatleng\n" +
	"BW06Kweneng\n" +
	"BW08North-East\n" +
	"BW09South-East\n" +
	"BW10Southern\n" +
	"BW11North-West\n" +
	"BY01Brestskaya Voblasts'\n" +
	"BY02Homyel'skaya Voblasts'\n" +
	"BY03Hrodzyenskaya Voblasts'\n" +
	"BY04Minsk\n" +
	"BY05Minskaya Voblasts'\n" +
	"BY06Mahilyowskaya Voblasts'\n" +
	"BY07Vitsyebskaya Voblasts'\n" +
	"BZ01Belize\n" +
	"BZ02Cayo\n" +
	"BZ03Corozal\n" +
	"BZ04Orange Walk\n" +
	"BZ05Stann Creek\n" +
	"BZ06Toledo\n" +
	"CAABAlberta\n" +
	"CABCBritish Columbia\n" +
	"CAMBManitoba\n" +
	"CANBNew Brunswick\n" +
	"CANLNewfoundland\n" +
	"CANSNova Scotia\n" +
	"CANTNorthwest Territories\n" +
	"CANUNunavut\n" +
	"CAONOntario\n" +
	"CAPEPrince Edward Island\n" +
	"CAQCQuebec\n" +
	"CASKSaskatchewan\n" +
	"CAYTYukon Territory\n" +
	"CD01Bandundu\n" +
	"CD02Equateur\n" +
	"CD04Kasai-Oriental\n" +
	"CD05Katanga\n" +
	"CD06Kinshasa\n" +
	"CD08Bas-Congo\n" +
	"CD09Orientale\n" +
	"CD10Maniema\n" +
	"CD11Nord-Kivu\n" +
	"CD12Sud-Kivu\n" +
	"CF01Bamingui-Bangoran\n" +
	"CF02Basse-Kotto\n" +
	"CF03Haute-Kotto\n" +
	"CF04Mambere-Kadei\n" +
	"CF05Haut-Mbomou\n" +
	"CF06Kemo\n" +
	"CF07Lobaye\n" +
	"CF08Mbomou\n" +
	"CF09Nana-Mambere\n" +
	"CF11Ouaka\n" +
	"CF12Ouham\n" +
	"CF13Ouham-Pende\n" +
	"CF14Cuvette-Ouest\n" +
	"CF15Nana-Grebizi\n" +
	"CF16Sangha-Mbaere\n" +
	"CF17Ombella-Mpoko\n" +
	"CF18Bangui\n" +
	"CG01Bouenza\n" +
	"CG04Kouilou\n" +
	"CG05Lekoumou\n" +
	"CG06Likouala\n" +
	"CG07Niari\n" +
	"CG08Plateaux\n" +
	"CG10Sangha\n" +
	"CG11Pool\n" +
	"CG12Brazzaville\n" +
	"CG13Cuvette\n" +
	"CG14Cuvette-Ouest\n" +
	"CH01Aargau\n" +
	"CH02Ausser-Rhoden\n" +
	"CH03Basel-Landschaft\n" +
	"CH04Basel-Stadt\n" +
	"CH05Bern\n" +
	"CH06Fribourg\n" +
	"CH07Geneve\n" +
	"CH08Glarus\n" +
	"CH09Graubunden\n" +
	"CH10Inner-Rhoden\n" +
	"CH11Luzern\n" +
	"CH12Neuchatel\n" +
	"CH13Nidwalden\n" +
	"CH14Obwalden\n" +
	"CH15Sankt Gallen\n" +
	"CH16Schaffhausen\n" +
	"CH17Schwyz\n" +
	"CH18Solothurn\n" +
	"CH19Thurgau\n" +
	"CH20Ticino\n" +
	"CH21Uri\n" +
	"CH22Valais\n" +
	"CH23Vaud\n" +
	"CH24Zug\n" +
	"CH25Zurich\n" +
	"CH26Jura\n" +
	"CI74Agneby\n" +
	"CI75Bafing\n" +
	"CI76Bas-Sassandra\n" +
	"CI77Denguele\n" +
	"CI78Dix-Huit Montagnes\n" +
	"CI79Fromager\n" +
	"CI80Haut-Sassandra\n" +
	"CI81Lacs\n" +
	"CI82Lagunes\n" +
	"CI83Marahoue\n" +
	"CI84Moyen-Cavally\n" +
	"CI85Moyen-Comoe\n" +
	"CI86N'zi-Comoe\n" +
	"CI87Savanes\n" +
	"CI88Sud-Bandama\n" +
	"CI89Sud-Comoe\n" +
	"CI90Vallee du Bandama\n" +
	"CI91Worodougou\n" +
	"CI92Zanzan\n" +
	"CL01Valparaiso\n" +
	"CL02Aisen del General Carlos Ibanez del Campo\n" +
	"CL03Antofagasta\n" +
	"CL04Araucania\n" +
	"CL05Atacama\n" +
	"CL06Bio-Bio\n" +
	"CL07Coquimbo\n" +
	"CL08Libertador General Bernardo O'Higgins\n" +
	"CL09Los Lagos\n" +
	"CL10Magallanes y de la Antartica Chilena\n" +
	"CL11Maule\n" +
	"CL12Region Metropolitana\n" +
	"CL13Tarapaca\n" +
	"CL14Los Lagos\n" +
	"CL15Tarapaca\n" +
	"CL16Arica y Parinacota\n" +
	"CL17Los Rios\n" +
	"CM04Est\n" +
	"CM05Littoral\n" +
	"CM07Nord-Ouest\n" +
	"CM08Ouest\n" +
	"CM09Sud-Ouest\n" +
	"CM10Adamaoua\n" +
	"CM11Centre\n" +
	"CM12Extreme-Nord\n" +
	"CM13Nord\n" +
	"CM14Sud\n" +
	"CN01Anhui\n" +
	"CN02Zhejiang\n" +
	"CN03Jiangxi\n" +
	"CN04Jiangsu\n" +
	"CN05Jilin\n" +
	"CN06Qinghai\n" +
	"CN07Fujian\n" +
	"CN08Heilongjiang\n" +
	"CN09Henan\n" +
	"CN10Hebei\n" +
	"CN11Hunan\n" +
	"CN12Hubei\n" +
	"CN13Xinjiang\n" +
	"CN14Xizang\n" +
	"CN15Gansu\n" +
	"CN16Guangxi\n" +
	"CN18Guizhou\n" +
	"CN19Liaoning\n" +
	"CN20Nei Mongol\n" +
	"CN21Ningxia\n" +
	"CN22Beijing\n" +
	"CN23Shanghai\n" +
	"CN24Shanxi\n" +
	"CN25Shandong\n" +
	"CN26Shaanxi\n" +
	"CN28Tianjin\n" +
	"CN29Yunnan\n" +
	"CN30Guangdong\n" +
	"CN31Hainan\n" +
	"CN32Sichuan\n" +
	"CN33Chongqing\n" +
	"CO01Amazonas\n" +
	"CO02Antioquia\n" +
	"CO03Arauca\n" +
	"CO04Atlantico\n" +
	"CO08Caqueta\n" +
	"CO09Cauca\n" +
	"CO10Cesar\n" +
	"CO11Choco\n" +
	"CO12Cordoba\n" +
	"CO14Guaviare\n" +
	"CO15Guainia\n" +
	"CO16Huila\n" +
	"CO17La Guajira\n" +
	"CO19Meta\n" +
	"CO20Narino\n" +
	"CO21Norte de Santander\n" +
	"CO22Putumayo\n" +
	"CO23Quindio\n" +
	"CO24Risaralda\n" +
	"CO25San Andres y Providencia\n" +
	"CO26Santander\n" +
	"CO27Sucre\n" +
	"CO28Tolima\n" +
	"CO29Valle del Cauca\n" +
	"CO30Vaupes\n" +
	"CO31Vichada\n" +
	"CO32Casanare\n" +
	"CO33Cundinamarca\n" +
	"CO34Distrito Especial\n" +
	"CO35Bolivar\n" +
	"CO36Boyaca\n" +
	"CO37Caldas\n" +
	"CO38Magdalena\n" +
	"CR01Alajuela\n" +
	"CR02Cartago\n" +
	"CR03Guanacaste\n" +
	"CR04Heredia\n" +
	"CR06Limon\n" +
	"CR07Puntarenas\n" +
	"CR08San Jose\n" +
	"CU01Pinar del Rio\n" +
	"CU02Ciudad de la Habana\n" +
	"CU03Matanzas\n" +
	"CU04Isla de la Juventud\n" +
	"CU05Camaguey\n" +
	"CU07Ciego de Avila\n" +
	"CU08Cienfuegos\n" +
	"CU09Granma\n" +
	"CU10Guantanamo\n" +
	"CU11La Habana\n" +
	"CU12Holguin\n" +
	"CU13Las Tunas\n" +
	"CU14Sancti Spiritus\n" +
	"CU15Santiago de Cuba\n" +
	"CU16Villa Clara\n" +
	"CV01Boa Vista\n" +
	"CV02Brava\n" +
	"CV04Maio\n" +
	"CV05Paul\n" +
	"CV07Ribeira Grande\n" +
	"CV08Sal\n" +
	"CV10Sao Nicolau\n" +
	"CV11Sao Vicente\n" +
	"CV13Mosteiros\n" +
	"CV14Praia\n" +
	"CV15Santa Catarina\n" +
	"CV16Santa Cruz\n" +
	"CV17Sao Domingos\n" +
	"CV18Sao Filipe\n" +
	"CV19Sao Miguel\n" +
	"CV20Tarrafal\n" +
	"CY01Famagusta\n" +
	"CY02Kyrenia\n" +
	"CY03Larnaca\n" +
	"CY04Nicosia\n" +
	"CY05Limassol\n" +
	"CY06Paphos\n" +
	"CZ52Hlavni mesto Praha\n" +
	"CZ78Jihomoravsky kraj\n" +
	"CZ79Jihocesky kraj\n" +
	"CZ80Vysocina\n" +
	"CZ81Karlovarsky kraj\n" +
	"CZ82Kralovehradecky kraj\n" +
	"CZ83Liberecky kraj\n" +
	"CZ84Olomoucky kraj\n" +
	"CZ85Moravskoslezsky kraj\n" +
	"CZ86Pardubicky kraj\n" +
	"CZ87Plzensky kraj\n" +
	"CZ88Stredocesky kraj\n" +
	"CZ89Ustecky kraj\n" +
	"CZ90Zlinsky kraj\n" +
	"DE01Baden-Wurttemberg\n" +
	"DE02Bayern\n" +
	"DE03Bremen\n" +
	"DE04Hamburg\n" +
	"DE05Hessen\n" +
	"DE06Niedersachsen\n" +
	"DE07Nordrhein-Westfalen\n" +
	"DE08Rheinland-Pfalz\n" +
	"DE09Saarland\n" +
	"DE10Schleswig-Holstein\n" +
	"DE11Brandenburg\n" +
	"DE12Mecklenburg-Vorpommern\n" +
	"DE13Sachsen\n" +
	"DE14Sachsen-Anhalt\n" +
	"DE15Thuringen\n" +
	"DE16Berlin\n" +
	"DJ01Ali Sabieh\n" +
	"DJ04Obock\n" +
	"DJ05Tadjoura\n" +
	"DJ06Dikhil\n" +
	"DJ07Djibouti\n" +
	"DJ08Arta\n" +
	"DK17Hovedstaden\n" +
	"DK18Midtjylland\n" +
	"DK19Nordjylland\n" +
	"DK20Sjelland\n" +
	"DK21Syddanmark\n" +
	"DM02Saint Andrew\n" +
	"DM03Saint David\n" +
	"DM04Saint George\n" +
	"DM05Saint John\n" +
	"DM06Saint Joseph\n" +
	"DM07Saint Luke\n" +
	"DM08Saint Mark\n" +
	"DM09Saint Patrick\n" +
	"DM10Saint Paul\n" +
	"DM11Saint Peter\n" +
	"DO01Azua\n" +
	"DO02Baoruco\n" +
	"DO03Barahona\n" +
	"DO04Dajabon\n" +
	"DO05Distrito Nacional\n" +
	"DO06Duarte\n" +
	"DO08Espaillat\n" +
	"DO09Independencia\n" +
	"DO10La Altagracia\n" +
	"DO11Elias Pina\n" +
	"DO12La Romana\n" +
	"DO14Maria Trinidad Sanchez\n" +
	"DO15Monte Cristi\n" +
	"DO16Pedernales\n" +
	"DO17Peravia\n" +
	"DO18Puerto Plata\n" +
	"DO19Salcedo\n" +
	"DO20Samana\n" +
	"DO21Sanchez Ramirez\n" +
	"DO23San Juan\n" +
	"DO24San Pedro De Macoris\n" +
	"DO25Santiago\n" +
	"DO26Santiago Rodriguez\n" +
	"DO27Valverde\n" +
	"DO28El Seibo\n" +
	"DO29Hato Mayor\n" +
	"DO30La Vega\n" +
	"DO31Monsenor Nouel\n" +
	"DO32Monte Plata\n" +
	"DO33San Cristobal\n" +
	"DO34Distrito Nacional\n" +
	"DO35Peravia\n" +
	"DO36San Jose de Ocoa\n" +
	"DO37Santo Domingo\n" +
	"DZ01Alger\n" +
	"DZ03Batna\n" +
	"DZ04Constantine\n" +
	"DZ06Medea\n" +
	"DZ07Mostaganem\n" +
	"DZ09Oran\n" +
	"DZ10Saida\n" +
	"DZ12Setif\n" +
	"DZ13Tiaret\n" +
	"DZ14Tizi Ouzou\n" +
	"DZ15Tlemcen\n" +
	"DZ18Bejaia\n" +
	"DZ19Biskra\n" +
	"DZ20Blida\n" +
	"DZ21Bouira\n" +
	"DZ22Djelfa\n" +
	"DZ23Guelma\n" +
	"DZ24Jijel\n" +
	"DZ25Laghouat\n" +
	"DZ26Mascara\n" +
	"DZ27M'sila\n" +
	"DZ29Oum el Bouaghi\n" +
	"DZ30Sidi Bel Abbes\n" +
	"DZ31Skikda\n" +
	"DZ33Tebessa\n" +
	"DZ34Adrar\n" +
	"DZ35Ain Defla\n" +
	"DZ36Ain Temouchent\n" +
	"DZ37Annaba\n" +
	"DZ38Bechar\n" +
	"DZ39Bordj Bou Arreridj\n" +
	"DZ40Boumerdes\n" +
	"DZ41Chlef\n" +
	"DZ42El Bayadh\n" +
	"DZ43El Oued\n" +
	"DZ44El Tarf\n" +
	"DZ45Ghardaia\n" +
	"DZ46Illizi\n" +
	"DZ47Khenchela\n" +
	"DZ48Mila\n" +
	"DZ49Naama\n" +
	"DZ50Ouargla\n" +
	"DZ51Relizane\n" +
	"DZ52Souk Ahras\n" +
	"DZ53Tamanghasset\n" +
	"DZ54Tindouf\n" +
	"DZ55Tipaza\n" +
	"DZ56Tissemsilt\n" +
	"EC01Galapagos\n" +
	"EC02Azuay\n" +
	"EC03Bolivar\n" +
	"EC04Canar\n" +
	"EC05Carchi\n" +
	"EC06Chimborazo\n" +
	"EC07Cotopaxi\n" +
	"EC08El Oro\n" +
	"EC09Esmeraldas\n" +
	"EC10Guayas\n" +
	"EC11Imbabura\n" +
	"EC12Loja\n" +
	"EC13Los Rios\n" +
	"EC14Manabi\n" +
	"EC15Morona-Santiago\n" +
	"EC17Pastaza\n" +
	"EC18Pichincha\n" +
	"EC19Tungurahua\n" +
	"EC20Zamora-Chinchipe\n" +
	"EC22Sucumbios\n" +
	"EC23Napo\n" +
	"EC24Orellana\n" +
	"EE01Harjumaa\n" +
	"EE02Hiiumaa\n" +
	"EE03Ida-Virumaa\n" +
	"EE04Jarvamaa\n" +
	"EE05Jogevamaa\n" +
	"EE06Kohtla-Jarve\n" +
	"EE07Laanemaa\n" +
	"EE08Laane-Virumaa\n" +
	"EE09Narva\n" +
	"EE10Parnu\n" +
	"EE11Parnumaa\n" +
	"EE12Polvamaa\n" +
	"EE13Raplamaa\n" +
	"EE14Saaremaa\n" +
	"EE15Sillamae\n" +
	"EE16Tallinn\n" +
	"EE17Tartu\n" +
	"EE18Tartumaa\n" +
	"EE19Valgamaa\n" +
	"EE20Viljandimaa\n" +
	"EE21Vorumaa\n" +
	"EG01Ad Daqahliyah\n" +
	"EG02Al Bahr al Ahmar\n" +
	"EG03Al Buhayrah\n" +
	"EG04Al Fayyum\n" +
	"EG05Al Gharbiyah\n" +
	"EG06Al Iskandariyah\n" +
	"EG07Al Isma'iliyah\n" +
	"EG08Al Jizah\n" +
	"EG09Al Minufiyah\n" +
	"EG10Al Minya\n" +
	"EG11Al Qahirah\n" +
	"EG12Al Qalyubiyah\n" +
	"EG13Al Wadi al Jadid\n" +
	"EG14Ash Sharqiyah\n" +
	"EG15As Suways\n" +
	"EG16Aswan\n" +
	"EG17Asyut\n" +
	"EG18Bani Suwayf\n" +
	"EG19Bur Sa'id\n" +
	"EG20Dumyat\n" +
	"EG21Kafr ash Shaykh\n" +
	"EG22Matruh\n" +
	"EG23Qina\n" +
	"EG24Suhaj\n" +
	"EG26Janub Sina'\n" +
	"EG27Shamal Sina'\n" +
	"EG28Al Uqsur\n" +
	"ER01Anseba\n" +
	"ER02Debub\n" +
	"ER03Debubawi K'eyih Bahri\n" +
	"ER04Gash Barka\n" +
	"ER05Ma'akel\n" +
	"ER06Semenawi K'eyih Bahri\n" +
	"ES07Islas Baleares\n" +
	"ES27La Rioja\n" +
	"ES29Madrid\n" +
	"ES31Murcia\n" +
	"ES32Navarra\n" +
	"ES34Asturias\n" +
	"ES39Cantabria\n" +
	"ES51Andalucia\n" +
	"ES52Aragon\n" +
	"ES53Canarias\n" +
	"ES54Castilla-La Mancha\n" +
	"ES55Castilla y Leon\n" +
	"ES56Catalonia\n" +
	"ES57Extremadura\n" +
	"ES58Galicia\n" +
	"ES59Pais Vasco\n" +
	"ES60Comunidad Valenciana\n" +
	"ET44Adis Abeba\n" +
	"ET45Afar\n" +
	"ET46Amara\n" +
	"ET47Binshangul Gumuz\n" +
	"ET48Dire Dawa\n" +
	"ET49Gambela Hizboch\n" +
	"ET50Hareri Hizb\n" +
	"ET51Oromiya\n" +
	"ET52Sumale\n" +
	"ET53Tigray\n" +
	"ET54YeDebub Biheroch Bihereseboch na Hizboch\n" +
	"FI01Aland\n" +
	"FI06Lapland\n" +
	"FI08Oulu\n" +
	"FI13Southern Finland\n" +
	"FI14Eastern Finland\n" +
	"FI15Western Finland\n" +
	"FJ01Central\n" +
	"FJ02Eastern\n" +
	"FJ03Northern\n" +
	"FJ04Rotuma\n" +
	"FJ05Western\n" +
	"FM01Kosrae\n" +
	"FM02Pohnpei\n" +
	"FM03Chuuk\n" +
	"FM04Yap\n" +
	"FR97Aquitaine\n" +
	"FR98Auvergne\n" +
	"FR99Basse-Normandie\n" +
	"FRA1Bourgogne\n" +
	"FRA2Bretagne\n" +
	"FRA3Centre\n" +
	"FRA4Champagne-Ardenne\n" +
	"FRA5Corse\n" +
	"FRA6Franche-Comte\n" +
	"FRA7Haute-Normandie\n" +
	"FRA8Ile-de-France\n" +
	"FRA9Languedoc-Roussillon\n" +
	"FRB1Limousin\n" +
	"FRB2Lorraine\n" +
	"FRB3Midi-Pyrenees\n" +
	"FRB4Nord-Pas-de-Calais\n" +
	"FRB5Pays de la Loire\n" +
	"FRB6Picardie\n" +
	"FRB7Poitou-Charentes\n" +
	"FRB8Provence-Alpes-Cote d'Azur\n" +
	"FRB9Rhone-Alpes\n" +
	"FRC1Alsace\n" +
	"GA01Estuaire\n" +
	"GA02Haut-Ogooue\n" +
	"GA03Moyen-Ogooue\n" +
	"GA04Ngounie\n" +
	"GA05Nyanga\n" +
	"GA06Ogooue-Ivindo\n" +
	"GA07Ogooue-Lolo\n" +
	"GA08Ogooue-Maritime\n" +
	"GA09Woleu-Ntem\n" +
	"GBA1Barking and Dagenham\n" +
	"GBA2Barnet\n" +
	"GBA3Barnsley\n" +
	"GBA4Bath and North East Somerset\n" +
	"GBA5Bedfordshire\n" +
	"GBA6Bexley\n" +
	"GBA7Birmingham\n" +
	"GBA8Blackburn with Darwen\n" +
	"GBA9Blackpool\n" +
	"GBB1Bolton\n" +
	"GBB2Bournemouth\n" +
	"GBB3Bracknell Forest\n" +
	"GBB4Bradford\n" +
	"GBB5Brent\n" +
	"GBB6Brighton and Hove\n" +
	"GBB7Bristol, City of\n" +
	"GBB8Bromley\n" +
	"GBB9Buckinghamshire\n" +
	"GBC1Bury\n" +
	"GBC2Calderdale\n" +
	"GBC3Cambridgeshire\n" +
	"GBC4Camden\n" +
	"GBC5Cheshire\n" +
	"GBC6Cornwall\n" +
	"GBC7Coventry\n" +
	"GBC8Croydon\n" +
	"GBC9Cumbria\n" +
	"GBD1Darlington\n" +
	"GBD2Derby\n" +
	"GBD3Derbyshire\n" +
	"GBD4Devon\n" +
	"GBD5Doncaster\n" +
	"GBD6Dorset\n" +
	"GBD7Dudley\n" +
	"GBD8Durham\n" +
	"GBD9Ealing\n" +
	"GBE1East Riding of Yorkshire\n" +
	"GBE2East Sussex\n" +
	"GBE3Enfield\n" +
	"GBE4Essex\n" +
	"GBE5Gateshead\n" +
	"GBE6Gloucestershire\n" +
	"GBE7Greenwich\n" +
	"GBE8Hackney\n" +
	"GBE9Halton\n" +
	"GBF1Hammersmith and Fulham\n" +
	"GBF2Hampshire\n" +
	"GBF3Haringey\n" +
	"GBF4Harrow\n" +
	"GBF5Hartlepool\n" +
	"GBF6Havering\n" +
	"GBF7Herefordshire\n" +
	"GBF8Hertford\n" +
	"GBF9Hillingdon\n" +
	"GBG1Hounslow\n" +
	"GBG2Isle of Wight\n" +
	"GBG3Islington\n" +
	"GBG4Kensington and Chelsea\n" +
	"GBG5Kent\n" +
	"GBG6Kingston upon Hull, City of\n" +
	"GBG7Kingston upon Thames\n" +
	"GBG8Kirklees\n" +
	"GBG9Knowsley\n" +
	"GBH1Lambeth\n" +
	"GBH2Lancashire\n" +
	"GBH3Leeds\n" +
	"GBH4Leicester\n" +
	"GBH5Leicestershire\n" +
	"GBH6Lewisham\n" +
	"GBH7Lincolnshire\n" +
	"GBH8Liverpool\n" +
	"GBH9London, City of\n" +
	"GBI1Luton\n" +
	"GBI2Manchester\n" +
	"GBI3Medway\n" +
	"GBI4Merton\n" +
	"GBI5Middlesbrough\n" +
	"GBI6Milton Keynes\n" +
	"GBI7Newcastle upon Tyne\n" +
	"GBI8Newham\n" +
	"GBI9Norfolk\n" +
	"GBJ1Northamptonshire\n" +
	"GBJ2North East Lincolnshire\n" +
	"GBJ3North Lincolnshire\n" +
	"GBJ4North Somerset\n" +
	"GBJ5North Tyneside\n" +
	"GBJ6Northumberland\n" +
	"GBJ7North Yorkshire\n" +
	"GBJ8Nottingham\n" +
	"GBJ9Nottinghamshire\n" +
	"GBK1Oldham\n" +
	"GBK2Oxfordshire\n" +
	"GBK3Peterborough\n" +
	"GBK4Plymouth\n" +
	"GBK5Poole\n" +
	"GBK6Portsmouth\n" +
	"GBK7Reading\n" +
	"GBK8Redbridge\n" +
	"GBK9Redcar and Cleveland\n" +
	"GBL1Richmond upon Thames\n" +
	"GBL2Rochdale\n" +
	"GBL3Rotherham\n" +
	"GBL4Rutland\n" +
	"GBL5Salford\n" +
	"GBL6Shropshire\n" +
	"GBL7Sandwell\n" +
	"GBL8Sefton\n" +
	"GBL9Sheffield\n" +
	"GBM1Slough\n" +
	"GBM2Solihull\n" +
	"GBM3Somerset\n" +
	"GBM4Southampton\n" +
	"GBM5Southend-on-Sea\n" +
	"GBM6South Gloucestershire\n" +
	"GBM7South Tyneside\n" +
	"GBM8Southwark\n" +
	"GBM9Staffordshire\n" +
	"GBN1St. Helens\n" +
	"GBN2Stockport\n" +
	"GBN3Stockton-on-Tees\n" +
	"GBN4Stoke-on-Trent\n" +
	"GBN5Suffolk\n" +
	"GBN6Sunderland\n" +
	"GBN7Surrey\n" +
	"GBN8Sutton\n" +
	"GBN9Swindon\n" +
	"GBO1Tameside\n" +
	"GBO2Telford and Wrekin\n" +
	"GBO3Thurrock\n" +
	"GBO4Torbay\n" +
	"GBO5Tower Hamlets\n" +
	"GBO6Trafford\n" +
	"GBO7Wakefield\n" +
	"GBO8Walsall\n" +
	"GBO9Waltham Forest\n" +
	"GBP1Wandsworth\n" +
	"GBP2Warrington\n" +
	"GBP3Warwickshire\n" +
	"GBP4West Berkshire\n" +
	"GBP5Westminster\n" +
	"GBP6West Sussex\n" +
	"GBP7Wigan\n" +
	"GBP8Wiltshire\n" +
	"GBP9Windsor and Maidenhead\n" +
	"GBQ1Wirral\n" +
	"GBQ2Wokingham\n" +
	"GBQ3Wolverhampton\n" +
	"GBQ4Worcestershire\n" +
	"GBQ5York\n" +
	"GBQ6Antrim\n" +
	"GBQ7Ards\n" +
	"GBQ8Armagh\n" +
	"GBQ9Ballymena\n" +
	"GBR1Ballymoney\n" +
	"GBR2Banbridge\n" +
	"GBR3Belfast\n" +
	"GBR4Carrickfergus\n" +
	"GBR5Castlereagh\n" +
	"GBR6Coleraine\n" +
	"GBR7Cookstown\n" +
	"GBR8Craigavon\n" +
	"GBR9Down\n" +
	"GBS1Dungannon\n" +
	"GBS2Fermanagh\n" +
	"GBS3Larne\n" +
	"GBS4Limavady\n" +
	"GBS5Lisburn\n" +
	"GBS6Derry\n" +
	"GBS7Magherafelt\n" +
	"GBS8Moyle\n" +
	"GBS9Newry and Mourne\n" +
	"GBT1Newtownabbey\n" +
	"GBT2North Down\n" +
	"GBT3Omagh\n" +
	"GBT4Strabane\n" +
	"GBT5Aberdeen City\n" +
	"GBT6Aberdeenshire\n" +
	"GBT7Angus\n" +
	"GBT8Argyll and Bute\n" +
	"GBT9Scottish Borders, The\n" +
	"GBU1Clackmannanshire\n" +
	"GBU2Dumfries and Galloway\n" +
	"GBU3Dundee City\n" +
	"GBU4East Ayrshire\n" +
	"GBU5East Dunbartonshire\n" +
	"GBU6East Lothian\n" +
	"GBU7East Renfrewshire\n" +
	"GBU8Edinburgh, City of\n" +
	"GBU9Falkirk\n" +
	"GBV1Fife\n" +
	"GBV2Glasgow City\n" +
	"GBV3Highland\n" +
	"GBV4Inverclyde\n" +
	"GBV5Midlothian\n" +
	"GBV6Moray\n" +
	"GBV7North Ayrshire\n" +
	"GBV8North Lanarkshire\n" +
	"GBV9Orkney\n" +
	"GBW1Perth and Kinross\n" +
	"GBW2Renfrewshire\n" +
	"GBW3Shetland Islands\n" +
	"GBW4South Ayrshire\n" +
	"GBW5South Lanarkshire\n" +
	"GBW6Stirling\n" +
	"GBW7West Dunbartonshire\n" +
	"GBW8Eilean Siar\n" +
	"GBW9West Lothian\n" +
	"GBX1Isle of Anglesey\n" +
	"GBX2Blaenau Gwent\n" +
	"GBX3Bridgend\n" +
	"GBX4Caerphilly\n" +
	"GBX5Cardiff\n" +
	"GBX6Ceredigion\n" +
	"GBX7Carmarthenshire\n" +
	"GBX8Conwy\n" +
	"GBX9Denbighshire\n" +
	"GBY1Flintshire\n" +
	"GBY2Gwynedd\n" +
	"GBY3Merthyr Tydfil\n" +
	"GBY4Monmouthshire\n" +
	"GBY5Neath Port Talbot\n" +
	"GBY6Newport\n" +
	"GBY7Pembrokeshire\n" +
	"GBY8Powys\n" +
	"GBY9Rhondda Cynon Taff\n" +
	"GBZ1Swansea\n" +
	"GBZ2Torfaen\n" +
	"GBZ3Vale of Glamorgan, The\n" +
	"GBZ4Wrexham\n" +
	"GBZ5Bedfordshire\n" +
	"GBZ6Central Bedfordshire\n" +
	"GBZ7Cheshire East\n" +
	"GBZ8Cheshire West and Chester\n" +
	"GBZ9Isles of Scilly\n" +
	"GD01Saint Andrew\n" +
	"GD02Saint David\n" +
	"GD03Saint George\n" +
	"GD04Saint John\n" +
	"GD05Saint Mark\n" +
	"GD06Saint Patrick\n" +
	"GE01Abashis Raioni\n" +
	"GE02Abkhazia\n" +
	"GE03Adigenis Raioni\n" +
	"GE04Ajaria\n" +
	"GE05Akhalgoris Raioni\n" +
	"GE06Akhalk'alak'is Raioni\n" +
	"GE07Akhalts'ikhis Raioni\n" +
	"GE08Akhmetis Raioni\n" +
	"GE09Ambrolauris Raioni\n" +
	"GE10Aspindzis Raioni\n" +
	"GE11Baghdat'is Raioni\n" +
	"GE12Bolnisis Raioni\n" +
	"GE13Borjomis Raioni\n" +
	"GE14Chiat'ura\n" +
	"GE15Ch'khorotsqus Raioni\n" +
	"GE16Ch'okhatauris Raioni\n" +
	"GE17Dedop'listsqaros Raioni\n" +
	"GE18Dmanisis Raioni\n" +
	"GE19Dushet'is Raioni\n" +
	"GE20Gardabanis Raioni\n" +
	"GE21Gori\n" +
	"GE22Goris Raioni\n" +
	"GE23Gurjaanis Raioni\n" +
	"GE24Javis Raioni\n" +
	"GE25K'arelis Raioni\n" +
	"GE26Kaspis Raioni\n" +
	"GE27Kharagaulis Raioni\n" +
	"GE28Khashuris Raioni\n" +
	"GE29Khobis Raioni\n" +
	"GE30Khonis Raioni\n" +
	"GE31K'ut'aisi\n" +
	"GE32Lagodekhis Raioni\n" +
	"GE33Lanch'khut'is Raioni\n" +
	"GE34Lentekhis Raioni\n" +
	"GE35Marneulis Raioni\n" +
	"GE36Martvilis Raioni\n" +
	"GE37Mestiis Raioni\n" +
	"GE38Mts'khet'is Raioni\n" +
	"GE39Ninotsmindis Raioni\n" +
	"GE40Onis Raioni\n" +
	"GE41Ozurget'is Raioni\n" +
	"GE42P'ot'i\n" +
	"GE43Qazbegis Raioni\n" +
	"GE44Qvarlis Raioni\n" +
	"GE45Rust'avi\n" +
	"GE46Sach'kheris Raioni\n" +
	"GE47Sagarejos Raioni\n" +
	"GE48Samtrediis Raioni\n" +
	"GE49Senakis Raioni\n" +
	"GE50Sighnaghis Raioni\n" +
	"GE51T'bilisi\n" +
	"GE52T'elavis Raioni\n" +
	"GE53T'erjolis Raioni\n" +
	"GE54T'et'ritsqaros Raioni\n" +
	"GE55T'ianet'is Raioni\n" +
	"GE56Tqibuli\n" +
	"GE57Ts'ageris Raioni\n" +
	"GE58Tsalenjikhis Raioni\n" +
	"GE59Tsalkis Raioni\n" +
	"GE60Tsqaltubo\n" +
	"GE61Vanis Raioni\n" +
	"GE62Zestap'onis Raioni\n" +
	"GE63Zugdidi\n" +
	"GE64Zugdidis Raioni\n" +
	"GH01Greater Accra\n" +
	"GH02Ashanti\n" +
	"GH03Brong-Ahafo\n" +
	"GH04Central\n" +
	"GH05Eastern\n" +
	"GH06Northern\n" +
	"GH08Volta\n" +
	"GH09Western\n" +
	"GH10Upper East\n" +
	"GH11Upper West\n" +
	"GL01Nordgronland\n" +
	"GL02Ostgronland\n" +
	"GL03Vestgronland\n" +
	"GM01Banjul\n" +
	"GM02Lower River\n" +
	"GM03Central River\n" +
	"GM04Upper River\n" +
	"GM05Western\n" +
	"GM07North Bank\n" +
	"GN01Beyla\n" +
	"GN02Boffa\n" +
	"GN03Boke\n" +
	"GN04Conakry\n" +
	"GN05Dabola\n" +
	"GN06Dalaba\n" +
	"GN07Dinguiraye\n" +
	"GN09Faranah\n" +
	"GN10Forecariah\n" +
	"GN11Fria\n" +
	"GN12Gaoual\n" +
	"GN13Gueckedou\n" +
	"GN15Kerouane\n" +
	"GN16Kindia\n" +
	"GN17Kissidougou\n" +
	"GN18Koundara\n" +
	"GN19Kouroussa\n" +
	"GN21Macenta\n" +
	"GN22Mali\n" +
	"GN23Mamou\n" +
	"GN25Pita\n" +
	"GN27Telimele\n" +
	"GN28Tougue\n" +
	"GN29Yomou\n" +
	"GN30Coyah\n" +
	"GN31Dubreka\n" +
	"GN32Kankan\n" +
	"GN33Koubia\n" +
	"GN34Labe\n" +
	"GN35Lelouma\n" +
	"GN36Lola\n" +
	"GN37Mandiana\n" +
	"GN38Nzerekore\n" +
	"GN39Siguiri\n" +
	"GQ03Annobon\n" +
	"GQ04Bioko Norte\n" +
	"GQ05Bioko Sur\n" +
	"GQ06Centro Sur\n" +
	"GQ07Kie-Ntem\n" +
	"GQ08Litoral\n" +
	"GQ09Wele-Nzas\n" +
	"GR01Evros\n" +
	"GR02Rodhopi\n" +
	"GR03Xanthi\n" +
	"GR04Drama\n" +
	"GR05Serrai\n" +
	"GR06Kilkis\n" +
	"GR07Pella\n" +
	"GR08Florina\n" +
	"GR09Kastoria\n" +
	"GR10Grevena\n" +
	"GR11Kozani\n" +
	"GR12Imathia\n" +
	"GR13Thessaloniki\n" +
	"GR14Kavala\n" +
	"GR15Khalkidhiki\n" +
	"GR16Pieria\n" +
	"GR17Ioannina\n" +
	"GR18Thesprotia\n" +
	"GR19Preveza\n" +
	"GR20Arta\n" +
	"GR21Larisa\n" +
	"GR22Trikala\n" +
	"GR23Kardhitsa\n" +
	"GR24Magnisia\n" +
	"GR25Kerkira\n" +
	"GR26Levkas\n" +
	"GR27Kefallinia\n" +
	"GR28Zakinthos\n" +
	"GR29Fthiotis\n" +
	"GR30Evritania\n" +
	"GR31Aitolia kai Akarnania\n" +
	"GR32Fokis\n" +
	"GR33Voiotia\n" +
	"GR34Evvoia\n" +
	"GR35Attiki\n" +
	"GR36Argolis\n" +
	"GR37Korinthia\n" +
	"GR38Akhaia\n" +
	"GR39Ilia\n" +
	"GR40Messinia\n" +
	"GR41Arkadhia\n" +
	"GR42Lakonia\n" +
	"GR43Khania\n" +
	"GR44Rethimni\n" +
	"GR45Iraklion\n" +
	"GR46Lasithi\n" +
	"GR47Dhodhekanisos\n" +
	"GR48Samos\n" +
	"GR49Kikladhes\n" +
	"GR50Khios\n" +
	"GR51Lesvos\n" +
	"GT01Alta Verapaz\n" +
	"GT02Baja Verapaz\n" +
	"GT03Chimaltenango\n" +
	"GT04Chiquimula\n" +
	"GT05El Progreso\n" +
	"GT06Escuintla\n" +
	"GT07Guatemala\n" +
	"GT08Huehuetenango\n" +
	"GT09Izabal\n" +
	"GT10Jalapa\n" +
	"GT11Jutiapa\n" +
	"GT12Peten\n" +
	"GT13Quetzaltenango\n" +
	"GT14Quiche\n" +
	"GT15Retalhuleu\n" +
	"GT16Sacatepequez\n" +
	"GT17San Marcos\n" +
	"GT18Santa Rosa\n" +
	"GT19Solola\n" +
	"GT20Suchitepequez\n" +
	"GT21Totonicapan\n" +
	"GT22Zacapa\n" +
	"GW01Bafata\n" +
	"GW02Quinara\n" +
	"GW04Oio\n" +
	"GW05Bolama\n" +
	"GW06Cacheu\n" +
	"GW07Tombali\n" +
	"GW10Gabu\n" +
	"GW11Bissau\n" +
	"GW12Biombo\n" +
	"GY10Barima-Waini\n" +
	"GY11Cuyuni-Mazaruni\n" +
	"GY12Demerara-Mahaica\n" +
	"GY13East Berbice-Corentyne\n" +
	"GY14Essequibo Islands-West Demerara\n" +
	"GY15Mahaica-Berbice\n" +
	"GY16Pomeroon-Supenaam\n" +
	"GY17Potaro-Siparuni\n" +
	"GY18Upper Demerara-Berbice\n" +
	"GY19Upper Takutu-Upper Essequibo\n" +
	"HN01Atlantida\n" +
	"HN02Choluteca\n" +
	"HN03Colon\n" +
	"HN04Comayagua\n" +
	"HN05Copan\n" +
	"HN06Cortes\n" +
	"HN07El Paraiso\n" +
	"HN08Francisco Morazan\n" +
	"HN09Gracias a Dios\n" +
	"HN10Intibuca\n" +
	"HN11Islas de la Bahia\n" +
	"HN12La Paz\n" +
	"HN13Lempira\n" +
	"HN14Ocotepeque\n" +
	"HN15Olancho\n" +
	"HN16Santa Barbara\n" +
	"HN17Valle\n" +
	"HN18Yoro\n" +
	"HR01Bjelovarsko-Bilogorska\n" +
	"HR02Brodsko-Posavska\n" +
	"HR03Dubrovacko-Neretvanska\n" +
	"HR04Istarska\n" +
	"HR05Karlovacka\n" +
	"HR06Koprivnicko-Krizevacka\n" +
	"HR07Krapinsko-Zagorska\n" +
	"HR08Licko-Senjska\n" +
	"HR09Medimurska\n" +
	"HR10Osjecko-Baranjska\n" +
	"HR11Pozesko-Slavonska\n" +
	"HR12Primorsko-Goranska\n" +
	"HR13Sibensko-Kninska\n" +
	"HR14Sisacko-Moslavacka\n" +
	"HR15Splitsko-Dalmatinska\n" +
	"HR16Varazdinska\n" +
	"HR17Viroviticko-Podravska\n" +
	"HR18Vukovarsko-Srijemska\n" +
	"HR19Zadarska\n" +
	"HR20Zagrebacka\n" +
	"HR21Grad Zagreb\n" +
	"HT03Nord-Ouest\n" +
	"HT06Artibonite\n" +
	"HT07Centre\n" +
	"HT09Nord\n" +
	"HT10Nord-Est\n" +
	"HT11Ouest\n" +
	"HT12Sud\n" +
	"HT13Sud-Est\n" +
	"HT14Grand' Anse\n" +
	"HT15Nippes\n" +
	"HU01Bacs-Kiskun\n" +
	"HU02Baranya\n" +
	"HU03Bekes\n" +
	"HU04Borsod-Abauj-Zemplen\n" +
	"HU05Budapest\n" +
	"HU06Csongrad\n" +
	"HU07Debrecen\n" +
	"HU08Fejer\n" +
	"HU09Gyor-Moson-Sopron\n" +
	"HU10Hajdu-Bihar\n" +
	"HU11Heves\n" +
	"HU12Komarom-Esztergom\n" +
	"HU13Miskolc\n" +
	"HU14Nograd\n" +
	"HU15Pecs\n" +
	"HU16Pest\n" +
	"HU17Somogy\n" +
	"HU18Szabolcs-Szatmar-Bereg\n" +
	"HU19Szeged\n" +
	"HU20Jasz-Nagykun-Szolnok\n" +
	"HU21Tolna\n" +
	"HU22Vas\n" +
	"HU23Veszprem\n" +
	"HU24Zala\n" +
	"HU25Gyor\n" +
	"HU26Bekescsaba\n" +
	"HU27Dunaujvaros\n" +
	"HU28Eger\n" +
	"HU29Hodmezovasarhely\n" +
	"HU30Kaposvar\n" +
	"HU31Kecskemet\n" +
	"HU32Nagykanizsa\n" +
	"HU33Nyiregyhaza\n" +
	"HU34Sopron\n" +
	"HU35Szekesfehervar\n" +
	"HU36Szolnok\n" +
	"HU37Szombathely\n" +
	"HU38Tatabanya\n" +
	"HU39Veszprem\n" +
	"HU40Zalaegerszeg\n" +
	"HU41Salgotarjan\n" +
	"HU42Szekszard\n" +
	"HU43Erd\n" +
	"ID01Aceh\n" +
	"ID02Bali\n" +
	"ID03Bengkulu\n" +
	"ID04Jakarta Raya\n" +
	"ID05Jambi\n" +
	"ID07Jawa Tengah\n" +
	"ID08Jawa Timur\n" +
	"ID10Yogyakarta\n" +
	"ID11Kalimantan Barat\n" +
	"ID12Kalimantan Selatan\n" +
	"ID13Kalimantan Tengah\n" +
	"ID14Kalimantan Timur\n" +
	"ID15Lampung\n" +
	"ID17Nusa Tenggara Barat\n" +
	"ID18Nusa Tenggara Timur\n" +
	"ID21Sulawesi Tengah\n" +
	"ID22Sulawesi Tenggara\n" +
	"ID24Sumatera Barat\n" +
	"ID26Sumatera Utara\n" +
	"ID28Maluku\n" +
	"ID29Maluku Utara\n" +
	"ID30Jawa Barat\n" +
	"ID31Sulawesi Utara\n" +
	"ID32Sumatera Selatan\n" +
	"ID33Banten\n" +
	"ID34Gorontalo\n" +
	"ID35Kepulauan Bangka Belitung\n" +
	"ID36Papua\n" +
	"ID37Riau\n" +
	"ID38Sulawesi Selatan\n" +
	"ID39Irian Jaya Barat\n" +
	"ID40Kepulauan Riau\n" +
	"ID41Sulawesi Barat\n" +
	"IE01Carlow\n" +
	"IE02Cavan\n" +
	"IE03Clare\n" +
	"IE04Cork\n" +
	"IE06Donegal\n" +
	"IE07Dublin\n" +
	"IE10Galway\n" +
	"IE11Kerry\n" +
	"IE12Kildare\n" +
	"IE13Kilkenny\n" +
	"IE14Leitrim\n" +
	"IE15Laois\n" +
	"IE16Limerick\n" +
	"IE18Longford\n" +
	"IE19Louth\n" +
	"IE20Mayo\n" +
	"IE21Meath\n" +
	"IE22Monaghan\n" +
	"IE23Offaly\n" +
	"IE24Roscommon\n" +
	"IE25Sligo\n" +
	"IE26Tipperary\n" +
	"IE27Waterford\n" +
	"IE29Westmeath\n" +
	"IE30Wexford\n" +
	"IE31Wicklow\n" +
	"IL01HaDarom\n" +
	"IL02HaMerkaz\n" +
	"IL03HaZafon\n" +
	"IL04Hefa\n" +
	"IL05Tel Aviv\n" +
	"IL06Yerushalayim\n" +
	"IN01Andaman and Nicobar Islands\n" +
	"IN02Andhra Pradesh\n" +
	"IN03Assam\n" +
	"IN05Chandigarh\n" +
	"IN06Dadra and Nagar Haveli\n" +
	"IN07Delhi\n" +
	"IN09Gujarat\n" +
	"IN10Haryana\n" +
	"IN11Himachal Pradesh\n" +
	"IN12Jammu and Kashmir\n" +
	"IN13Kerala\n" +
	"IN14Lakshadweep\n" +
	"IN16Maharashtra\n" +
	"IN17Manipur\n" +
	"IN18Meghalaya\n" +
	"IN19Karnataka\n" +
	"IN20Nagaland\n" +
	"IN21Orissa\n" +
	"IN22Puducherry\n" +
	"IN23Punjab\n" +
	"IN24Rajasthan\n" +
	"IN25Tamil Nadu\n" +
	"IN26Tripura\n" +
	"IN28West Bengal\n" +
	"IN29Sikkim\n" +
	"IN30Arunachal Pradesh\n" +
	"IN31Mizoram\n" +
	"IN32Daman and Diu\n" +
	"IN33Goa\n" +
	"IN34Bihar\n" +
	"IN35Madhya Pradesh\n" +
	"IN36Uttar Pradesh\n" +
	"IN37Chhattisgarh\n" +
	"IN38Jharkhand\n" +
	"IN39Uttarakhand\n" +
	"IQ01Al Anbar\n" +
	"IQ02Al Basrah\n" +
	"IQ03Al Muthanna\n" +
	"IQ04Al Qadisiyah\n" +
	"IQ05As Sulaymaniyah\n" +
	"IQ06Babil\n" +
	"IQ07Baghdad\n" +
	"IQ08Dahuk\n" +
	"IQ09Dhi Qar\n" +
	"IQ10Diyala\n" +
	"IQ11Arbil\n" +
	"IQ12Karbala'\n" +
	"IQ13At Ta'mim\n" +
	"IQ14Maysan\n" +
	"IQ15Ninawa\n" +
	"IQ16Wasit\n" +
	"IQ17An Najaf\n" +
	"IQ18Salah ad Din\n" +
	"IR01Azarbayjan-e Bakhtari\n" +
	"IR03Chahar Mahall va Bakhtiari\n" +
	"IR04Sistan va Baluchestan\n" +
	"IR05Kohkiluyeh va Buyer Ahmadi\n" +
	"IR07Fars\n" +
	"IR08Gilan\n" +
	"IR09Hamadan\n" +
	"IR10Ilam\n" +
	"IR11Hormozgan\n" +
	"IR12Kerman\n" +
	"IR13Bakhtaran\n" +
	"IR15Khuzestan\n" +
	"IR16Kordestan\n" +
	"IR17Mazandaran\n" +
	"IR18Semnan Province\n" +
	"IR19Markazi\n" +
	"IR21Zanjan\n" +
	"IR22Bushehr\n" +
	"IR23Lorestan\n" +
	"IR24Markazi\n" +
	"IR25Semnan\n" +
	"IR26Tehran\n" +
	"IR27Zanjan\n" +
	"IR28Esfahan\n" +
	"IR29Kerman\n" +
	"IR30Khorasan\n" +
	"IR31Yazd\n" +
	"IR32Ardabil\n" +
	"IR33East Azarbaijan\n" +
	"IR34Markazi\n" +
	"IR35Mazandaran\n" +
	"IR36Zanjan\n" +
	"IR37Golestan\n" +
	"IR38Qazvin\n" +
	"IR39Qom\n" +
	"IR40Yazd\n" +
	"IR41Khorasan-e Janubi\n" +
	"IR42Khorasan-e Razavi\n" +
	"IR43Khorasan-e Shemali\n" +
	"IR44Alborz\n" +
	"IS03Arnessysla\n" +
	"IS05Austur-Hunavatnssysla\n" +
	"IS06Austur-Skaftafellssysla\n" +
	"IS07Borgarfjardarsysla\n" +
	"IS09Eyjafjardarsysla\n" +
	"IS10Gullbringusysla\n" +
	"IS15Kjosarsysla\n" +
	"IS17Myrasysla\n" +
	"IS20Nordur-Mulasysla\n" +
	"IS21Nordur-Tingeyjarsysla\n" +
	"IS23Rangarvallasysla\n" +
	"IS28Skagafjardarsysla\n" +
	"IS29Snafellsnes- og Hnappadalssysla\n" +
	"IS30Strandasysla\n" +
	"IS31Sudur-Mulasysla\n" +
	"IS32Sudur-Tingeyjarsysla\n" +
	"IS34Vestur-Bardastrandarsysla\n" +
	"IS35Vestur-Hunavatnssysla\n" +
	"IS36Vestur-Isafjardarsysla\n" +
	"IS37Vestur-Skaftafellssysla\n" +
	"IS38Austurland\n" +
	"IS39Hofuoborgarsvaoio\n" +
	"IS40Norourland Eystra\n" +
	"IS41Norourland Vestra\n" +
	"IS42Suourland\n" +
	"IS43Suournes\n" +
	"IS44Vestfiroir\n" +
	"IS45Vesturland\n" +
	"IT01Abruzzi\n" +
	"IT02Basilicata\n" +
	"IT03Calabria\n" +
	"IT04Campania\n" +
	"IT05Emilia-Romagna\n" +
	"IT06Friuli-Venezia Giulia\n" +
	"IT07Lazio\n" +
	"IT08Liguria\n" +
	"IT09Lombardia\n" +
	"IT10Marche\n" +
	"IT11Molise\n" +
	"IT12Piemonte\n" +
	"IT13Puglia\n" +
	"IT14Sardegna\n" +
	"IT15Sicilia\n" +
	"IT16Toscana\n" +
	"IT17Trentino-Alto Adige\n" +
	"IT18Umbria\n" +
	"IT19Valle d'Aosta\n" +
	"IT20Veneto\n" +
	"JM01Clarendon\n" +
	"JM02Hanover\n" +
	"JM04Manchester\n" +
	"JM07Portland\n" +
	"JM08Saint Andrew\n" +
	"JM09Saint Ann\n" +
	"JM10Saint Catherine\n" +
	"JM11Saint Elizabeth\n" +
	"JM12Saint James\n" +
	"JM13Saint Mary\n" +
	"JM14Saint Thomas\n" +
	"JM15Trelawny\n" +
	"JM16Westmoreland\n" +
	"JM17Kingston\n" +
	"JO02Al Balqa'\n" +
	"JO09Al Karak\n" +
	"JO12At Tafilah\n" +
	"JO15Al Mafraq\n" +
	"JO16Amman\n" +
	"JO17Az Zaraqa\n" +
	"JO18Irbid\n" +
	"JO19Ma'an\n" +
	"JO20Ajlun\n" +
	"JO21Al Aqabah\n" +
	"JO22Jarash\n" +
	"JO23Madaba\n" +
	"JP01Aichi\n" +
	"JP02Akita\n" +
	"JP03Aomori\n" +
	"JP04Chiba\n" +
	"JP05Ehime\n" +
	"JP06Fukui\n" +
	"JP07Fukuoka\n" +
	"JP08Fukushima\n" +
	"JP09Gifu\n" +
	"JP10Gumma\n" +
	"JP11Hiroshima\n" +
	"JP12Hokkaido\n" +
	"JP13Hyogo\n" +
	"JP14Ibaraki\n" +
	"JP15Ishikawa\n" +
	"JP16Iwate\n" +
	"JP17Kagawa\n" +
	"JP18Kagoshima\n" +
	"JP19Kanagawa\n" +
	"JP20Kochi\n" +
	"JP21Kumamoto\n" +
	"JP22Kyoto\n" +
	"JP23Mie\n" +
	"JP24Miyagi\n" +
	"JP25Miyazaki\n" +
	"JP26Nagano\n" +
	"JP27Nagasaki\n" +
	"JP28Nara\n" +
	"JP29Niigata\n" +
	"JP30Oita\n" +
	"JP31Okayama\n" +
	"JP32Osaka\n" +
	"JP33Saga\n" +
	"JP34Saitama\n" +
	"JP35Shiga\n" +
	"JP36Shimane\n" +
	"JP37Shizuoka\n" +
	"JP38Tochigi\n" +
	"JP39Tokushima\n" +
	"JP40Tokyo\n" +
	"JP41Tottori\n" +
	"JP42Toyama\n" +
	"JP43Wakayama\n" +
	"JP44Yamagata\n" +
	"JP45Yamaguchi\n" +
	"JP46Yamanashi\n" +
	"JP47Okinawa\n" +
	"KE01Central\n" +
	"KE02Coast\n" +
	"KE03Eastern\n" +
	"KE05Nairobi Area\n" +
	"KE06North-Eastern\n" +
	"KE07Nyanza\n" +
	"KE08Rift Valley\n" +
	"KE09Western\n" +
	"KG01Bishkek\n" +
	"KG02Chuy\n" +
	"KG03Jalal-Abad\n" +
	"KG04Naryn\n" +
	"KG05Osh\n" +
	"KG06Talas\n" +
	"KG07Ysyk-Kol\n" +
	"KG08Osh\n" +
	"KG09Batken\n" +
	"KH01Batdambang\n" +
	"KH02Kampong Cham\n" +
	"KH03Kampong Chhnang\n" +
	"KH04Kampong Speu\n" +
	"KH05Kampong Thum\n" +
	"KH06Kampot\n" +
	"KH07Kandal\n" +
	"KH08Koh Kong\n" +
	"KH09Kracheh\n" +
	"KH10Mondulkiri\n" +
	"KH11Phnum Penh\n" +
	"KH12Pursat\n" +
	"KH13Preah Vihear\n" +
	"KH14Prey Veng\n" +
	"KH15Ratanakiri Kiri\n" +
	"KH16Siem Reap\n" +
	"KH17Stung Treng\n" +
	"KH18Svay Rieng\n" +
	"KH19Takeo\n" +
	"KH22Phnum Penh\n" +
	"KH23Ratanakiri\n" +
	"KH25Banteay Meanchey\n" +
	"KH28Preah Seihanu\n" +
	"KH29Batdambang\n" +
	"KH30Pailin\n" +
	"KI01Gilbert Islands\n" +
	"KI02Line Islands\n" +
	"KI03Phoenix Islands\n" +
	"KM01Anjouan\n" +
	"KM02Grande Comore\n" +
	"KM03Moheli\n" +
	"KN01Christ Church Nichola Town\n" +
	"KN02Saint Anne Sandy Point\n" +
	"KN03Saint George Basseterre\n" +
	"KN04Saint George Gingerland\n" +
	"KN05Saint James Windward\n" +
	"KN06Saint John Capisterre\n" +
	"KN07Saint John Figtree\n" +
	"KN08Saint Mary Cayon\n" +
	"KN09Saint Paul Capisterre\n" +
	"KN10Saint Paul Charlestown\n" +
	"KN11Saint Peter Basseterre\n" +
	"KN12Saint Thomas Lowland\n" +
	"KN13Saint Thomas Middle Island\n" +
	"KN15Trinity Palmetto Point\n" +
	"KP01Chagang-do\n" +
	"KP03Hamgyong-namdo\n" +
	"KP06Hwanghae-namdo\n" +
	"KP07Hwanghae-bukto\n" +
	"KP08Kaesong-si\n" +
	"KP09Kangwon-do\n" +
	"KP11P'yongan-bukto\n" +
	"KP12P'yongyang-si\n" +
	"KP13Yanggang-do\n" +
	"KP14Namp'o-si\n" +
	"KP15P'yongan-namdo\n" +
	"KP17Hamgyong-bukto\n" +
	"KP18Najin Sonbong-si\n" +
	"KR01Cheju-do\n" +
	"KR03Cholla-bukto\n" +
	"KR05Ch'ungch'ong-bukto\n" +
	"KR06Kangwon-do\n" +
	"KR10Pusan-jikhalsi\n" +
	"KR11Seoul-t'ukpyolsi\n" +
	"KR12Inch'on-jikhalsi\n" +
	"KR13Kyonggi-do\n" +
	"KR14Kyongsang-bukto\n" +
	"KR15Taegu-jikhalsi\n" +
	"KR16Cholla-namdo\n" +
	"KR17Ch'ungch'ong-namdo\n" +
	"KR18Kwangju-jikhalsi\n" +
	"KR19Taejon-jikhalsi\n" +
	"KR20Kyongsang-namdo\n" +
	"KR21Ulsan-gwangyoksi\n" +
	"KW01Al Ahmadi\n" +
	"KW02Al Kuwayt\n" +
	"KW05Al Jahra\n" +
	"KW07Al Farwaniyah\n" +
	"KW08Hawalli\n" +
	"KW09Mubarak al Kabir\n" +
	"KY01Creek\n" +
	"KY02Eastern\n" +
	"KY03Midland\n" +
	"KY04South Town\n" +
	"KY05Spot Bay\n" +
	"KY06Stake Bay\n" +
	"KY07West End\n" +
	"KY08Western\n" +
	"KZ01Almaty\n" +
	"KZ02Almaty City\n" +
	"KZ03Aqmola\n" +
	"KZ04Aqtobe\n" +
	"KZ05Astana\n" +
	"KZ06Atyrau\n" +
	"KZ07West Kazakhstan\n" +
	"KZ08Bayqonyr\n" +
	"KZ09Mangghystau\n" +
	"KZ10South Kazakhstan\n" +
	"KZ11Pavlodar\n" +
	"KZ12Qaraghandy\n" +
	"KZ13Qostanay\n" +
	"KZ14Qyzylorda\n" +
	"KZ15East Kazakhstan\n" +
	"KZ16North Kazakhstan\n" +
	"KZ17Zhambyl\n" +
	"LA01Attapu\n" +
	"LA02Champasak\n" +
	"LA03Houaphan\n" +
	"LA04Khammouan\n" +
	"LA05Louang Namtha\n" +
	"LA07Oudomxai\n" +
	"LA08Phongsali\n" +
	"LA09Saravan\n" +
	"LA10Savannakhet\n" +
	"LA11Vientiane\n" +
	"LA13Xaignabouri\n" +
	"LA14Xiangkhoang\n" +
	"LA17Louangphrabang\n" +
	"LB01Beqaa\n" +
	"LB02Al Janub\n" +
	"LB03Liban-Nord\n" +
	"LB04Beyrouth\n" +
	"LB05Mont-Liban\n" +
	"LB06Liban-Sud\n" +
	"LB07Nabatiye\n" +
	"LB08Beqaa\n" +
	"LB09Liban-Nord\n" +
	"LB10Aakk,r\n" +
	"LB11Baalbek-Hermel\n" +
	"LC01Anse-la-Raye\n" +
	"LC02Dauphin\n" +
	"LC03Castries\n" +
	"LC04Choiseul\n" +
	"LC05Dennery\n" +
	"LC06Gros-Islet\n" +
	"LC07Laborie\n" +
	"LC08Micoud\n" +
	"LC09Soufriere\n" +
	"LC10Vieux-Fort\n" +
	"LC11Praslin\n" +
	"LI01Balzers\n" +
	"LI02Eschen\n" +
	"LI03Gamprin\n" +
	"LI04Mauren\n" +
	"LI05Planken\n" +
	"LI06Ruggell\n" +
	"LI07Schaan\n" +
	"LI08Schellenberg\n" +
	"LI09Triesen\n" +
	"LI10Triesenberg\n" +
	"LI11Vaduz\n" +
	"LI21Gbarpolu\n" +
	"LI22River Gee\n" +
	"LK29Central\n" +
	"LK30North Central\n" +
	"LK32North Western\n" +
	"LK33Sabaragamuwa\n" +
	"LK34Southern\n" +
	"LK35Uva\n" +
	"LK36Western\n" +
	"LK37Eastern\n" +
	"LK38Northern\n" +
	"LR01Bong\n" +
	"LR04Grand Cape Mount\n" +
	"LR05Lofa\n" +
	"LR06Maryland\n" +
	"LR07Monrovia\n" +
	"LR09Nimba\n" +
	"LR10Sino\n" +
	"LR11Grand Bassa\n" +
	"LR12Grand Cape Mount\n" +
	"LR13Maryland\n" +
	"LR14Montserrado\n" +
	"LR17Margibi\n" +
	"LR18River Cess\n" +
	"LR19Grand Gedeh\n" +
	"LR20Lofa\n" +
	"LR21Gbarpolu\n" +
	"LR22River Gee\n" +
	"LS10Berea\n" +
	"LS11Butha-Buthe\n" +
	"LS12Leribe\n" +
	"LS13Mafeteng\n" +
	"LS14Maseru\n" +
	"LS15Mohales Hoek\n" +
	"LS16Mokhotlong\n" +
	"LS17Qachas Nek\n" +
	"LS18Quthing\n" +
	"LS19Thaba-Tseka\n" +
	"LT56Alytaus Apskritis\n" +
	"LT57Kauno Apskritis\n" +
	"LT58Klaipedos Apskritis\n" +
	"LT59Marijampoles Apskritis\n" +
	"LT60Panevezio Apskritis\n" +
	"LT61Siauliu Apskritis\n" +
	"LT62Taurages Apskritis\n" +
	"LT63Telsiu Apskritis\n" +
	"LT64Utenos Apskritis\n" +
	"LT65Vilniaus Apskritis\n" +
	"LU01Diekirch\n" +
	"LU02Grevenmacher\n" +
	"LU03Luxembourg\n" +
	"LV01Aizkraukles\n" +
	"LV02Aluksnes\n" +
	"LV03Balvu\n" +
	"LV04Bauskas\n" +
	"LV05Cesu\n" +
	"LV06Daugavpils\n" +
	"LV07Daugavpils\n" +
	"LV08Dobeles\n" +
	"LV09Gulbenes\n" +
	"LV10Jekabpils\n" +
	"LV11Jelgava\n" +
	"LV12Jelgavas\n" +
	"LV13Jurmala\n" +
	"LV14Kraslavas\n" +
	"LV15Kuldigas\n" +
	"LV16Liepaja\n" +
	"LV17Liepajas\n" +
	"LV18Limbazu\n" +
	"LV19Ludzas\n" +
	"LV20Madonas\n" +
	"LV21Ogres\n" +
	"LV22Preilu\n" +
	"LV23Rezekne\n" +
	"LV24Rezeknes\n" +
	"LV25Riga\n" +
	"LV26Rigas\n" +
	"LV27Saldus\n" +
	"LV28Talsu\n" +
	"LV29Tukuma\n" +
	"LV30Valkas\n" +
	"LV31Valmieras\n" +
	"LV32Ventspils\n" +
	"LV33Ventspils\n" +
	"LY03Al Aziziyah\n" +
	"LY05Al Jufrah\n" +
	"LY08Al Kufrah\n" +
	"LY13Ash Shati'\n" +
	"LY30Murzuq\n" +
	"LY34Sabha\n" +
	"LY41Tarhunah\n" +
	"LY42Tubruq\n" +
	"LY45Zlitan\n" +
	"LY47Ajdabiya\n" +
	"LY48Al Fatih\n" +
	"LY49Al Jabal al Akhdar\n" +
	"LY50Al Khums\n" +
	"LY51An Nuqat al Khams\n" +
	"LY52Awbari\n" +
	"LY53Az Zawiyah\n" +
	"LY54Banghazi\n" +
	"LY55Darnah\n" +
	"LY56Ghadamis\n" +
	"LY57Gharyan\n" +
	"LY58Misratah\n" +
	"LY59Sawfajjin\n" +
	"LY60Surt\n" +
	"LY61Tarabulus\n" +
	"LY62Yafran\n" +
	"MA45Grand Casablanca\n" +
	"MA46Fes-Boulemane\n" +
	"MA47Marrakech-Tensift-Al Haouz\n" +
	"MA48Meknes-Tafilalet\n" +
	"MA49Rabat-Sale-Zemmour-Zaer\n" +
	"MA50Chaouia-Ouardigha\n" +
	"MA51Doukkala-Abda\n" +
	"MA52Gharb-Chrarda-Beni Hssen\n" +
	"MA53Guelmim-Es Smara\n" +
	"MA54Oriental\n" +
	"MA55Souss-Massa-Dr,a\n" +
	"MA56Tadla-Azilal\n" +
	"MA57Tanger-Tetouan\n" +
	"MA58Taza-Al Hoceima-Taounate\n" +
	"MA59La,youne-Boujdour-Sakia El Hamra\n" +
	"MC01La Condamine\n" +
	"MC02Monaco\n" +
	"MC03Monte-Carlo\n" +
	"MD51Gagauzia\n" +
	"MD57Chisinau\n" +
	"MD58Stinga Nistrului\n" +
	"MD59Anenii Noi\n" +
	"MD60Balti\n" +
	"MD61Basarabeasca\n" +
	"MD62Bender\n" +
	"MD63Briceni\n" +
	"MD64Cahul\n" +
	"MD65Cantemir\n" +
	"MD66Calarasi\n" +
	"MD67Causeni\n" +
	"MD68Cimislia\n" +
	"MD69Criuleni\n" +
	"MD70Donduseni\n" +
	"MD71Drochia\n" +
	"MD72Dubasari\n" +
	"MD73Edinet\n" +
	"MD74Falesti\n" +
	"MD75Floresti\n" +
	"MD76Glodeni\n" +
	"MD77Hincesti\n" +
	"MD78Ialoveni\n" +
	"MD79Leova\n" +
	"MD80Nisporeni\n" +
	"MD81Ocnita\n" +
	"MD82Orhei\n" +
	"MD83Rezina\n" +
	"MD84Riscani\n" +
	"MD85Singerei\n" +
	"MD86Soldanesti\n" +
	"MD87Soroca\n" +
	"MD88Stefan-Voda\n" +
	"MD89Straseni\n" +
	"MD90Taraclia\n" +
	"MD91Telenesti\n" +
	"MD92Ungheni\n" +
	"MG01Antsiranana\n" +
	"MG02Fianarantsoa\n" +
	"MG03Mahajanga\n" +
	"MG04Toamasina\n" +
	"MG05Antananarivo\n" +
	"MG06Toliara\n" +
	"MK01Aracinovo\n" +
	"MK02Bac\n" +
	"MK03Belcista\n" +
	"MK04Berovo\n" +
	"MK05Bistrica\n" +
	"MK06Bitola\n" +
	"MK07Blatec\n" +
	"MK08Bogdanci\n" +
	"MK09Bogomila\n" +
	"MK10Bogovinje\n" +
	"MK11Bosilovo\n" +
	"MK12Brvenica\n" +
	"MK13Cair\n" +
	"MK14Capari\n" +
	"MK15Caska\n" +
	"MK16Cegrane\n" +
	"MK17Centar\n" +
	"MK18Centar Zupa\n" +
	"MK19Cesinovo\n" +
	"MK20Cucer-Sandevo\n" +
	"MK21Debar\n" +
	"MK22Delcevo\n" +
	"MK23Delogozdi\n" +
	"MK24Demir Hisar\n" +
	"MK25Demir Kapija\n" +
	"MK26Dobrusevo\n" +
	"MK27Dolna Banjica\n" +
	"MK28Dolneni\n" +
	"MK29Dorce Petrov\n" +
	"MK30Drugovo\n" +
	"MK31Dzepciste\n" +
	"MK32Gazi Baba\n" +
	"MK33Gevgelija\n" +
	"MK34Gostivar\n" +
	"MK35Gradsko\n" +
	"MK36Ilinden\n" +
	"MK37Izvor\n" +
	"MK38Jegunovce\n" +
	"MK39Kamenjane\n" +
	"MK40Karbinci\n" +
	"MK41Karpos\n" +
	"MK42Kavadarci\n" +
	"MK43Kicevo\n" +
	"MK44Kisela Voda\n" +
	"MK45Klecevce\n" +
	"MK46Kocani\n" +
	"MK47Konce\n" +
	"MK48Kondovo\n" +
	"MK49Konopiste\n" +
	"MK50Kosel\n" +
	"MK51Kratovo\n" +
	"MK52Kriva Palanka\n" +
	"MK53Krivogastani\n" +
	"MK54Krusevo\n" +
	"MK55Kuklis\n" +
	"MK56Kukurecani\n" +
	"MK57Kumanovo\n" +
	"MK58Labunista\n" +
	"MK59Lipkovo\n" +
	"MK60Lozovo\n" +
	"MK61Lukovo\n" +
	"MK62Makedonska Kamenica\n" +
	"MK63Makedonski Brod\n" +
	"MK64Mavrovi Anovi\n" +
	"MK65Meseista\n" +
	"MK66Miravci\n" +
	"MK67Mogila\n" +
	"MK68Murtino\n" +
	"MK69Negotino\n" +
	"MK70Negotino-Polosko\n" +
	"MK71Novaci\n" +
	"MK72Novo Selo\n" +
	"MK73Oblesevo\n" +
	"MK74Ohrid\n" +
	"MK75Orasac\n" +
	"MK76Orizari\n" +
	"MK77Oslomej\n" +
	"MK78Pehcevo\n" +
	"MK79Petrovec\n" +
	"MK80Plasnica\n" +
	"MK81Podares\n" +
	"MK82Prilep\n" +
	"MK83Probistip\n" +
	"MK84Radovis\n" +
	"MK85Rankovce\n" +
	"MK86Resen\n" +
	"MK87Rosoman\n" +
	"MK88Rostusa\n" +
	"MK89Samokov\n" +
	"MK90Saraj\n" +
	"MK91Sipkovica\n" +
	"MK92Sopiste\n" +
	"MK93Sopotnica\n" +
	"MK94Srbinovo\n" +
	"MK95Staravina\n" +
	"MK96Star Dojran\n" +
	"MK97Staro Nagoricane\n" +
	"MK98Stip\n" +
	"MK99Struga\n" +
	"MKA1Strumica\n" +
	"MKA2Studenicani\n" +
	"MKA3Suto Orizari\n" +
	"MKA4Sveti Nikole\n" +
	"MKA5Tearce\n" +
	"MKA6Tetovo\n" +
	"MKA7Topolcani\n" +
	"MKA8Valandovo\n" +
	"MKA9Vasilevo\n" +
	"MKB1Veles\n" +
	"MKB2Velesta\n" +
	"MKB3Vevcani\n" +
	"MKB4Vinica\n" +
	"MKB5Vitoliste\n" +
	"MKB6Vranestica\n" +
	"MKB7Vrapciste\n" +
	"MKB8Vratnica\n" +
	"MKB9Vrutok\n" +
	"MKC1Zajas\n" +
	"MKC2Zelenikovo\n" +
	"MKC3Zelino\n" +
	"MKC4Zitose\n" +
	"MKC5Zletovo\n" +
	"MKC6Zrnovci\n" +
	"MKC8Cair\n" +
	"MKC9Caska\n" +
	"MKD2Debar\n" +
	"MKD3Demir Hisar\n" +
	"MKD4Gostivar\n" +
	"MKD5Jegunovce\n" +
	"MKD6Kavadarci\n" +
	"MKD7Kumanovo\n" +
	"MKD8Makedonski Brod\n" +
	"MKE2Ohrid\n" +
	"MKE3Prilep\n" +
	"MKE5Dojran\n" +
	"MKE6Struga\n" +
	"MKE7Strumica\n" +
	"MKE8Tetovo\n" +
	"MKE9Valandovo\n" +
	"MKF1Veles\n" +
	"MKF2Aerodrom\n" +
	"ML01Bamako\n" +
	"ML03Kayes\n" +
	"ML04Mopti\n" +
	"ML05Segou\n" +
	"ML06Sikasso\n" +
	"ML07Koulikoro\n" +
	"ML08Tombouctou\n" +
	"ML09Gao\n" +
	"ML10Kidal\n" +
	"MM01Rakhine State\n" +
	"MM02Chin State\n" +
	"MM03Irrawaddy\n" +
	"MM04Kachin State\n" +
	"MM05Karan State\n" +
	"MM06Kayah State\n" +
	"MM07Magwe\n" +
	"MM08Mandalay\n" +
	"MM09Pegu\n" +
	"MM10Sagaing\n" +
	"MM11Shan State\n" +
	"MM12Tenasserim\n" +
	"MM13Mon State\n" +
	"MM14Rangoon\n" +
	"MM17Yangon\n" +
	"MN01Arhangay\n" +
	"MN02Bayanhongor\n" +
	"MN03Bayan-Olgiy\n" +
	"MN05Darhan\n" +
	"MN06Dornod\n" +
	"MN07Dornogovi\n" +
	"MN08Dundgovi\n" +
	"MN09Dzavhan\n" +
	"MN10Govi-Altay\n" +
	"MN11Hentiy\n" +
	"MN12Hovd\n" +
	"MN13Hovsgol\n" +
	"MN14Omnogovi\n" +
	"MN15Ovorhangay\n" +
	"MN16Selenge\n" +
	"MN17Suhbaatar\n" +
	"MN18Tov\n" +
	"MN19Uvs\n" +
	"MN20Ulaanbaatar\n" +
	"MN21Bulgan\n" +
	"MN22Erdenet\n" +
	"MN23Darhan-Uul\n" +
	"MN24Govisumber\n" +
	"MN25Orhon\n" +
	"MO01Ilhas\n" +
	"MO02Macau\n" +
	"MR01Hodh Ech Chargui\n" +
	"MR02Hodh El Gharbi\n" +
	"MR03Assaba\n" +
	"MR04Gorgol\n" +
	"MR05Brakna\n" +
	"MR06Trarza\n" +
	"MR07Adrar\n" +
	"MR08Dakhlet Nouadhibou\n" +
	"MR09Tagant\n" +
	"MR10Guidimaka\n" +
	"MR11Tiris Zemmour\n" +
	"MR12Inchiri\n" +
	"MS01Saint Anthony\n" +
	"MS02Saint Georges\n" +
	"MS03Saint Peter\n" +
	"MU12Black River\n" +
	"MU13Flacq\n" +
	"MU14Grand Port\n" +
	"MU15Moka\n" +
	"MU16Pamplemousses\n" +
	"MU17Plaines Wilhems\n" +
	"MU18Port Louis\n" +
	"MU19Riviere du Rempart\n" +
	"MU20Savanne\n" +
	"MU21Agalega Islands\n" +
	"MU22Cargados Carajos\n" +
	"MU23Rodrigues\n" +
	"MV01Seenu\n" +
	"MV05Laamu\n" +
	"MV30Alifu\n" +
	"MV31Baa\n" +
	"MV32Dhaalu\n" +
	"MV33Faafu \n" +
	"MV34Gaafu Alifu\n" +
	"MV35Gaafu Dhaalu\n" +
	"MV36Haa Alifu\n" +
	"MV37Haa Dhaalu\n" +
	"MV38Kaafu\n" +
	"MV39Lhaviyani\n" +
	"MV40Maale\n" +
	"MV41Meemu\n" +
	"MV42Gnaviyani\n" +
	"MV43Noonu\n" +
	"MV44Raa\n" +
	"MV45Shaviyani\n" +
	"MV46Thaa\n" +
	"MV47Vaavu\n" +
	"MW02Chikwawa\n" +
	"MW03Chiradzulu\n" +
	"MW04Chitipa\n" +
	"MW05Thyolo\n" +
	"MW06Dedza\n" +
	"MW07Dowa\n" +
	"MW08Karonga\n" +
	"MW09Kasungu\n" +
	"MW11Lilongwe\n" +
	"MW12Mangochi\n" +
	"MW13Mchinji\n" +
	"MW15Mzimba\n" +
	"MW16Ntcheu\n" +
	"MW17Nkhata Bay\n" +
	"MW18Nkhotakota\n" +
	"MW19Nsanje\n" +
	"MW20Ntchisi\n" +
	"MW21Rumphi\n" +
	"MW22Salima\n" +
	"MW23Zomba\n" +
	"MW24Blantyre\n" +
	"MW25Mwanza\n" +
	"MW26Balaka\n" +
	"MW27Likoma\n" +
	"MW28Machinga\n" +
	"MW29Mulanje\n" +
	"MW30Phalombe\n" +
	"MX01Aguascalientes\n" +
	"MX02Baja California\n" +
	"MX03Baja California Sur\n" +
	"MX04Campeche\n" +
	"MX05Chiapas\n" +
	"MX06Chihuahua\n" +
	"MX07Coahuila de Zaragoza\n" +
	"MX08Colima\n" +
	"MX09Distrito Federal\n" +
	"MX10Durango\n" +
	"MX11Guanajuato\n" +
	"MX12Guerrero\n" +
	"MX13Hidalgo\n" +
	"MX14Jalisco\n" +
	"MX15Mexico\n" +
	"MX16Michoacan de Ocampo\n" +
	"MX17Morelos\n" +
	"MX18Nayarit\n" +
	"MX19Nuevo Leon\n" +
	"MX20Oaxaca\n" +
	"MX21Puebla\n" +
	"MX22Queretaro de Arteaga\n" +
	"MX23Quintana Roo\n" +
	"MX24San Luis Potosi\n" +
	"MX25Sinaloa\n" +
	"MX26Sonora\n" +
	"MX27Tabasco\n" +
	"MX28Tamaulipas\n" +
	"MX29Tlaxcala\n" +
	"MX30Veracruz-Llave\n" +
	"MX31Yucatan\n" +
	"MX32Zacatecas\n" +
	"MY01Johor\n" +
	"MY02Kedah\n" +
	"MY03Kelantan\n" +
	"MY04Melaka\n" +
	"MY05Negeri Sembilan\n" +
	"MY06Pahang\n" +
	"MY07Perak\n" +
	"MY08Perlis\n" +
	"MY09Pulau Pinang\n" +
	"MY11Sarawak\n" +
	"MY12Selangor\n" +
	"MY13Terengganu\n" +
	"MY14Kuala Lumpur\n" +
	"MY15Labuan\n" +
	"MY16Sabah\n" +
	"MY17Putrajaya\n" +
	"MZ01Cabo Delgado\n" +
	"MZ02Gaza\n" +
	"MZ03Inhambane\n" +
	"MZ04Maputo\n" +
	"MZ05Sofala\n" +
	"MZ06Nampula\n" +
	"MZ07Niassa\n" +
	"MZ08Tete\n" +
	"MZ09Zambezia\n" +
	"MZ10Manica\n" +
	"MZ11Maputo\n" +
	"NA01Bethanien\n" +
	"NA02Caprivi Oos\n" +
	"NA03Boesmanland\n" +
	"NA04Gobabis\n" +
	"NA05Grootfontein\n" +
	"NA06Kaokoland\n" +
	"NA07Karibib\n" +
	"NA08Keetmanshoop\n" +
	"NA09Luderitz\n" +
	"NA10Maltahohe\n" +
	"NA11Okahandja\n" +
	"NA12Omaruru\n" +
	"NA13Otjiwarongo\n" +
	"NA14Outjo\n" +
	"NA15Owambo\n" +
	"NA16Rehoboth\n" +
	"NA17Swakopmund\n" +
	"NA18Tsumeb\n" +
	"NA20Karasburg\n" +
	"NA21Windhoek\n" +
	"NA22Damaraland\n" +
	"NA23Hereroland Oos\n" +
	"NA24Hereroland Wes\n" +
	"NA25Kavango\n" +
	"NA26Mariental\n" +
	"NA27Namaland\n" +
	"NA28Caprivi\n" +
	"NA29Erongo\n" +
	"NA30Hardap\n" +
	"NA31Karas\n" +
	"NA32Kunene\n" +
	"NA33Ohangwena\n" +
	"NA34Okavango\n" +
	"NA35Omaheke\n" +
	"NA36Omusati\n" +
	"NA37Oshana\n" +
	"NA38Oshikoto\n" +
	"NA39Otjozondjupa\n" +
	"NE01Agadez\n" +
	"NE02Diffa\n" +
	"NE03Dosso\n" +
	"NE04Maradi\n" +
	"NE05Niamey\n" +
	"NE06Tahoua\n" +
	"NE07Zinder\n" +
	"NE08Niamey\n" +
	"NG05Lagos\n" +
	"NG11Federal Capital Territory\n" +
	"NG16Ogun\n" +
	"NG21Akwa Ibom\n" +
	"NG22Cross River\n" +
	"NG23Kaduna\n" +
	"NG24Katsina\n" +
	"NG25Anambra\n" +
	"NG26Benue\n" +
	"NG27Borno\n" +
	"NG28Imo\n" +
	"NG29Kano\n" +
	"NG30Kwara\n" +
	"NG31Niger\n" +
	"NG32Oyo\n" +
	"NG35Adamawa\n" +
	"NG36Delta\n" +
	"NG37Edo\n" +
	"NG39Jigawa\n" +
	"NG40Kebbi\n" +
	"NG41Kogi\n" +
	"NG42Osun\n" +
	"NG43Taraba\n" +
	"NG44Yobe\n" +
	"NG45Abia\n" +
	"NG46Bauchi\n" +
	"NG47Enugu\n" +
	"NG48Ondo\n" +
	"NG49Plateau\n" +
	"NG50Rivers\n" +
	"NG51Sokoto\n" +
	"NG52Bayelsa\n" +
	"NG53Ebonyi\n" +
	"NG54Ekiti\n" +
	"NG55Gombe\n" +
	"NG56Nassarawa\n" +
	"NG57Zamfara\n" +
	"NI01Boaco\n" +
	"NI02Carazo\n" +
	"NI03Chinandega\n" +
	"NI04Chontales\n" +
	"NI05Esteli\n" +
	"NI06Granada\n" +
	"NI07Jinotega\n" +
	"NI08Leon\n" +
	"NI09Madriz\n" +
	"NI10Managua\n" +
	"NI11Masaya\n" +
	"NI12Matagalpa\n" +
	"NI13Nueva Segovia\n" +
	"NI14Rio San Juan\n" +
	"NI15Rivas\n" +
	"NI16Zelaya\n" +
	"NI17Autonoma Atlantico Norte\n" +
	"NI18Region Autonoma Atlantico Sur\n" +
	"NL01Drenthe\n" +
	"NL02Friesland\n" +
	"NL03Gelderland\n" +
	"NL04Groningen\n" +
	"NL05Limburg\n" +
	"NL06Noord-Brabant\n" +
	"NL07Noord-Holland\n" +
	"NL09Utrecht\n" +
	"NL10Zeeland\n" +
	"NL11Zuid-Holland\n" +
	"NL15Overijssel\n" +
	"NL16Flevoland\n" +
	"NO01Akershus\n" +
	"NO02Aust-Agder\n" +
	"NO04Buskerud\n" +
	"NO05Finnmark\n" +
	"NO06Hedmark\n" +
	"NO07Hordaland\n" +
	"NO08More og Romsdal\n" +
	"NO09Nordland\n" +
	"NO10Nord-Trondelag\n" +
	"NO11Oppland\n" +
	"NO12Oslo\n" +
	"NO13Ostfold\n" +
	"NO14Rogaland\n" +
	"NO15Sogn og Fjordane\n" +
	"NO16Sor-Trondelag\n" +
	"NO17Telemark\n" +
	"NO18Troms\n" +
	"NO19Vest-Agder\n" +
	"NO20Vestfold\n" +
	"NP01Bagmati\n" +
	"NP02Bheri\n" +
	"NP03Dhawalagiri\n" +
	"NP04Gandaki\n" +
	"NP05Janakpur\n" +
	"NP06Karnali\n" +
	"NP07Kosi\n" +
	"NP08Lumbini\n" +
	"NP09Mahakali\n" +
	"NP10Mechi\n" +
	"NP11Narayani\n" +
	"NP12Rapti\n" +
	"NP13Sagarmatha\n" +
	"NP14Seti\n" +
	"NR01Aiwo\n" +
	"NR02Anabar\n" +
	"NR03Anetan\n" +
	"NR04Anibare\n" +
	"NR05Baiti\n" +
	"NR06Boe\n" +
	"NR07Buada\n" +
	"NR08Denigomodu\n" +
	"NR09Ewa\n" +
	"NR10Ijuw\n" +
	"NR11Meneng\n" +
	"NR12Nibok\n" +
	"NR13Uaboe\n" +
	"NR14Yaren\n" +
	"NZ10Chatham Islands\n" +
	"NZE7Auckland\n" +
	"NZE8Bay of Plenty\n" +
	"NZE9Canterbury\n" +
	"NZF1Gisborne\n" +
	"NZF2Hawke's Bay\n" +
	"NZF3Manawatu-Wanganui\n" +
	"NZF4Marlborough\n" +
	"NZF5Nelson\n" +
	"NZF6Northland\n" +
	"NZF7Otago\n" +
	"NZF8Southland\n" +
	"NZF9Taranaki\n" +
	"NZG1Waikato\n" +
	"NZG2Wellington\n" +
	"NZG3West Coast\n" +
	"OM01Ad Dakhiliyah\n" +
	"OM02Al Batinah\n" +
	"OM03Al Wusta\n" +
	"OM04Ash Sharqiyah\n" +
	"OM05Az Zahirah\n" +
	"OM06Masqat\n" +
	"OM07Musandam\n" +
	"OM08Zufar\n" +
	"PA01Bocas del Toro\n" +
	"PA02Chiriqui\n" +
	"PA03Cocle\n" +
	"PA04Colon\n" +
	"PA05Darien\n" +
	"PA06Herrera\n" +
	"PA07Los Santos\n" +
	"PA08Panama\n" +
	"PA09San Blas\n" +
	"PA10Veraguas\n" +
	"PE01Amazonas\n" +
	"PE02Ancash\n" +
	"PE03Apurimac\n" +
	"PE04Arequipa\n" +
	"PE05Ayacucho\n" +
	"PE06Cajamarca\n" +
	"PE07Callao\n" +
	"PE08Cusco\n" +
	"PE09Huancavelica\n" +
	"PE10Huanuco\n" +
	"PE11Ica\n" +
	"PE12Junin\n" +
	"PE13La Libertad\n" +
	"PE14Lambayeque\n" +
	"PE15Lima\n" +
	"PE16Loreto\n" +
	"PE17Madre de Dios\n" +
	"PE18Moquegua\n" +
	"PE19Pasco\n" +
	"PE20Piura\n" +
	"PE21Puno\n" +
	"PE22San Martin\n" +
	"PE23Tacna\n" +
	"PE24Tumbes\n" +
	"PE25Ucayali\n" +
	"PG01Central\n" +
	"PG02Gulf\n" +
	"PG03Milne Bay\n" +
	"PG04Northern\n" +
	"PG05Southern Highlands\n" +
	"PG06Western\n" +
	"PG07North Solomons\n" +
	"PG08Chimbu\n" +
	"PG09Eastern Highlands\n" +
	"PG10East New Britain\n" +
	"PG11East Sepik\n" +
	"PG12Madang\n" +
	"PG13Manus\n" +
	"PG14Morobe\n" +
	"PG15New Ireland\n" +
	"PG16Western Highlands\n" +
	"PG17West New Britain\n" +
	"PG18Sandaun\n" +
	"PG19Enga\n" +
	"PG20National Capital\n" +
	"PH01Abra\n" +
	"PH02Agusan del Norte\n" +
	"PH03Agusan del Sur\n" +
	"PH04Aklan\n" +
	"PH05Albay\n" +
	"PH06Antique\n" +
	"PH07Bataan\n" +
	"PH08Batanes\n" +
	"PH09Batangas\n" +
	"PH10Benguet\n" +
	"PH11Bohol\n" +
	"PH12Bukidnon\n" +
	"PH13Bulacan\n" +
	"PH14Cagayan\n" +
	"PH15Camarines Norte\n" +
	"PH16Camarines Sur\n" +
	"PH17Camiguin\n" +
	"PH18Capiz\n" +
	"PH19Catanduanes\n" +
	"PH20Cavite\n" +
	"PH21Cebu\n" +
	"PH22Basilan\n" +
	"PH23Eastern Samar\n" +
	"PH24Davao\n" +
	"PH25Davao del Sur\n" +
	"PH26Davao Oriental\n" +
	"PH27Ifugao\n" +
	"PH28Ilocos Norte\n" +
	"PH29Ilocos Sur\n" +
	"PH30Iloilo\n" +
	"PH31Isabela\n" +
	"PH32Kalinga-Apayao\n" +
	"PH33Laguna\n" +
	"PH34Lanao del Norte\n" +
	"PH35Lanao del Sur\n" +
	"PH36La Union\n" +
	"PH37Leyte\n" +
	"PH38Marinduque\n" +
	"PH39Masbate\n" +
	"PH40Mindoro Occidental\n" +
	"PH41Mindoro Oriental\n" +
	"PH42Misamis Occidental\n" +
	"PH43Misamis Oriental\n" +
	"PH44Mountain\n" +
	"PH45Negros Occidental\n" +
	"PH46Negros Oriental\n" +
	"PH47Nueva Ecija\n" +
	"PH48Nueva Vizcaya\n" +
	"PH49Palawan\n" +
	"PH50Pampanga\n" +
	"PH51Pangasinan\n" +
	"PH53Rizal\n" +
	"PH54Romblon\n" +
	"PH55Samar\n" +
	"PH56Maguindanao\n" +
	"PH57North Cotabato\n" +
	"PH58Sorsogon\n" +
	"PH59Southern Leyte\n" +
	"PH60Sulu\n" +
	"PH61Surigao del Norte\n" +
	"PH62Surigao del Sur\n" +
	"PH63Tarlac\n" +
	"PH64Zambales\n" +
	"PH65Zamboanga del Norte\n" +
	"PH66Zamboanga del Sur\n" +
	"PH67Northern Samar\n" +
	"PH68Quirino\n" +
	"PH69Siquijor\n" +
	"PH70South Cotabato\n" +
	"PH71Sultan Kudarat\n" +
	"PH72Tawitawi\n" +
	"PHA1Angeles\n" +
	"PHA2Bacolod\n" +
	"PHA3Bago\n" +
	"PHA4Baguio\n" +
	"PHA5Bais\n" +
	"PHA6Basilan City\n" +
	"PHA7Batangas City\n" +
	"PHA8Butuan\n" +
	"PHA9Cabanatuan\n" +
	"PHB1Cadiz\n" +
	"PHB2Cagayan de Oro\n" +
	"PHB3Calbayog\n" +
	"PHB4Caloocan\n" +
	"PHB5Canlaon\n" +
	"PHB6Cavite City\n" +
	"PHB7Cebu City\n" +
	"PHB8Cotabato\n" +
	"PHB9Dagupan\n" +
	"PHC1Danao\n" +
	"PHC2Dapitan\n" +
	"PHC3Davao City\n" +
	"PHC4Dipolog\n" +
	"PHC5Dumaguete\n" +
	"PHC6General Santos\n" +
	"PHC7Gingoog\n" +
	"PHC8Iligan\n" +
	"PHC9Iloilo City\n" +
	"PHD1Iriga\n" +
	"PHD2La Carlota\n" +
	"PHD3Laoag\n" +
	"PHD4Lapu-Lapu\n" +
	"PHD5Legaspi\n" +
	"PHD6Lipa\n" +
	"PHD7Lucena\n" +
	"PHD8Mandaue\n" +
	"PHD9Manila\n" +
	"PHE1Marawi\n" +
	"PHE2Naga\n" +
	"PHE3Olongapo\n" +
	"PHE4Ormoc\n" +
	"PHE5Oroquieta\n" +
	"PHE6Ozamis\n" +
	"PHE7Pagadian\n" +
	"PHE8Palayan\n" +
	"PHE9Pasay\n" +
	"PHF1Puerto Princesa\n" +
	"PHF2Quezon City\n" +
	"PHF3Roxas\n" +
	"PHF4San Carlos\n" +
	"PHF5San Carlos\n" +
	"PHF6San Jose\n" +
	"PHF7San Pablo\n" +
	"PHF8Silay\n" +
	"PHF9Surigao\n" +
	"PHG1Tacloban\n" +
	"PHG2Tagaytay\n" +
	"PHG3Tagbilaran\n" +
	"PHG4Tangub\n" +
	"PHG5Toledo\n" +
	"PHG6Trece Martires\n" +
	"PHG7Zamboanga\n" +
	"PHG8Aurora\n" +
	"PHH2Quezon\n" +
	"PHH3Negros Occidental\n" +
	"PHH9Biliran\n" +
	"PHI6Compostela Valley\n" +
	"PHI7Davao del Norte\n" +
	"PHJ3Guimaras\n" +
	"PHJ4Himamaylan\n" +
	"PHJ7Kalinga\n" +
	"PHK1Las Pinas\n" +
	"PHK5Malabon\n" +
	"PHK6Malaybalay\n" +
	"PHL4Muntinlupa\n" +
	"PHL5Navotas\n" +
	"PHL7Paranaque\n" +
	"PHL9Passi\n" +
	"PHM5San Jose del Monte\n" +
	"PHM6San Juan\n" +
	"PHM8Santiago\n" +
	"PHM9Sarangani\n" +
	"PHN1Sipalay\n" +
	"PHN3Surigao del Norte\n" +
	"PHP1Zambales\n" +
	"PHP2Zamboanga\n" +
	"PK01Federally Administered Tribal Areas\n" +
	"PK02Balochistan\n" +
	"PK03North-West Frontier\n" +
	"PK04Punjab\n" +
	"PK05Sindh\n" +
	"PK06Azad Kashmir\n" +
	"PK07Northern Areas\n" +
	"PK08Islamabad\n" +
	"PL72Dolnoslaskie\n" +
	"PL73Kujawsko-Pomorskie\n" +
	"PL74Lodzkie\n" +
	"PL75Lubelskie\n" +
	"PL76Lubuskie\n" +
	"PL77Malopolskie\n" +
	"PL78Mazowieckie\n" +
	"PL79Opolskie\n" +
	"PL80Podkarpackie\n" +
	"PL81Podlaskie\n" +
	"PL82Pomorskie\n" +
	"PL83Slaskie\n" +
	"PL84Swietokrzyskie\n" +
	"PL85Warminsko-Mazurskie\n" +
	"PL86Wielkopolskie\n" +
	"PL87Zachodniopomorskie\n" +
	"PSGZGaza\n" +
	"PSWEWest Bank\n" +
	"PT02Aveiro\n" +
	"PT03Beja\n" +
	"PT04Braga\n" +
	"PT05Braganca\n" +
	"PT06Castelo Branco\n" +
	"PT07Coimbra\n" +
	"PT08Evora\n" +
	"PT09Faro\n" +
	"PT10Madeira\n" +
	"PT11Guarda\n" +
	"PT13Leiria\n" +
	"PT14Lisboa\n" +
	"PT16Portalegre\n" +
	"PT17Porto\n" +
	"PT18Santarem\n" +
	"PT19Setubal\n" +
	"PT20Viana do Castelo\n" +
	"PT21Vila Real\n" +
	"PT22Viseu\n" +
	"PT23Azores\n" +
	"PY01Alto Parana\n" +
	"PY02Amambay\n" +
	"PY04Caaguazu\n" +
	"PY05Caazapa\n" +
	"PY06Central\n" +
	"PY07Concepcion\n" +
	"PY08Cordillera\n" +
	"PY10Guaira\n" +
	"PY11Itapua\n" +
	"PY12Misiones\n" +
	"PY13Neembucu\n" +
	"PY15Paraguari\n" +
	"PY16Presidente Hayes\n" +
	"PY17San Pedro\n" +
	"PY19Canindeyu\n" +
	"PY22Asuncion\n" +
	"PY23Alto Paraguay\n" +
	"PY24Boqueron\n" +
	"QA01Ad Dawhah\n" +
	"QA02Al Ghuwariyah\n" +
	"QA03Al Jumaliyah\n" +
	"QA04Al Khawr\n" +
	"QA05Al Wakrah Municipality\n" +
	"QA06Ar Rayyan\n" +
	"QA08Madinat ach Shamal\n" +
	"QA09Umm Salal\n" +
	"QA10Al Wakrah\n" +
	"QA11Jariyan al Batnah\n" +
	"QA12Umm Sa'id\n" +
	"RO01Alba\n" +
	"RO02Arad\n" +
	"RO03Arges\n" +
	"RO04Bacau\n" +
	"RO05Bihor\n" +
	"RO06Bistrita-Nasaud\n" +
	"RO07Botosani\n" +
	"RO08Braila\n" +
	"RO09Brasov\n" +
	"RO10Bucuresti\n" +
	"RO11Buzau\n" +
	"RO12Caras-Severin\n" +
	"RO13Cluj\n" +
	"RO14Constanta\n" +
	"RO15Covasna\n" +
	"RO16Dambovita\n" +
	"RO17Dolj\n" +
	"RO18Galati\n" +
	"RO19Gorj\n" +
	"RO20Harghita\n" +
	"RO21Hunedoara\n" +
	"RO22Ialomita\n" +
	"RO23Iasi\n" +
	"RO25Maramures\n" +
	"RO26Mehedinti\n" +
	"RO27Mures\n" +
	"RO28Neamt\n" +
	"RO29Olt\n" +
	"RO30Prahova\n" +
	"RO31Salaj\n" +
	"RO32Satu Mare\n" +
	"RO33Sibiu\n" +
	"RO34Suceava\n" +
	"RO35Teleorman\n" +
	"RO36Timis\n" +
	"RO37Tulcea\n" +
	"RO38Vaslui\n" +
	"RO39Valcea\n" +
	"RO40Vrancea\n" +
	"RO41Calarasi\n" +
	"RO42Giurgiu\n" +
	"RO43Ilfov\n" +
	"RS01Kosovo\n" +
	"RS02Vojvodina\n" +
	"RU01Adygeya, Republic of\n" +
	"RU02Aginsky Buryatsky AO\n" +
	"RU03Gorno-Altay\n" +
	"RU04Altaisky krai\n" +
	"RU05Amur\n" +
	"RU06Arkhangel'sk\n" +
	"RU07Astrakhan'\n" +
	"RU08Bashkortostan\n" +
	"RU09Belgorod\n" +
	"RU10Bryansk\n" +
	"RU11Buryat\n" +
	"RU12Chechnya\n" +
	"RU13Chelyabinsk\n" +
	"RU14Chita\n" +
	"RU15Chukot\n" +
	"RU16Chuvashia\n" +
	"RU17Dagestan\n" +
	"RU18Evenk\n" +
	"RU19Ingush\n" +
	"RU20Irkutsk\n" +
	"RU21Ivanovo\n" +
	"RU22Kabardin-Balkar\n" +
	"RU23Kaliningrad\n" +
	"RU24Kalmyk\n" +
	"RU25Kaluga\n" +
	"RU26Kamchatka\n" +
	"RU27Karachay-Cherkess\n" +
	"RU28Karelia\n" +
	"RU29Kemerovo\n" +
	"RU30Khabarovsk\n" +
	"RU31Khakass\n" +
	"RU32Khanty-Mansiy\n" +
	"RU33Kirov\n" +
	"RU34Komi\n" +
	"RU36Koryak\n" +
	"RU37Kostroma\n" +
	"RU38Krasnodar\n" +
	"RU39Krasnoyarsk\n" +
	"RU40Kurgan\n" +
	"RU41Kursk\n" +
	"RU42Leningrad\n" +
	"RU43Lipetsk\n" +
	"RU44Magadan\n" +
	"RU45Mariy-El\n" +
	"RU46Mordovia\n" +
	"RU47Moskva\n" +
	"RU48Moscow City\n" +
	"RU49Murmansk\n" +
	"RU50Nenets\n" +
	"RU51Nizhegorod\n" +
	"RU52Novgorod\n" +
	"RU53Novosibirsk\n" +
	"RU54Omsk\n" +
	"RU55Orenburg\n" +
	"RU56Orel\n" +
	"RU57Penza\n" +
	"RU58Perm'\n" +
	"RU59Primor'ye\n" +
	"RU60Pskov\n" +
	"RU61Rostov\n" +
	"RU62Ryazan'\n" +
	"RU63Sakha\n" +
	"RU64Sakhalin\n" +
	"RU65Samara\n" +
	"RU66Saint Petersburg City\n" +
	"RU67Saratov\n" +
	"RU68North Ossetia\n" +
	"RU69Smolensk\n" +
	"RU70Stavropol'\n" +
	"RU71Sverdlovsk\n" +
	"RU72Tambovskaya oblast\n" +
	"RU73Tatarstan\n" +
	"RU74Taymyr\n" +
	"RU75Tomsk\n" +
	"RU76Tula\n" +
	"RU77Tver'\n" +
	"RU78Tyumen'\n" +
	"RU79Tuva\n" +
	"RU80Udmurt\n" +
	"RU81Ul'yanovsk\n" +
	"RU83Vladimir\n" +
	"RU84Volgograd\n" +
	"RU85Vologda\n" +
	"RU86Voronezh\n" +
	"RU87Yamal-Nenets\n" +
	"RU88Yaroslavl'\n" +
	"RU89Yevrey\n" +
	"RU90Permskiy Kray\n" +
	"RU91Krasnoyarskiy Kray\n" +
	"RU92Kamchatskiy Kray\n" +
	"RU93Zabaykal'skiy Kray\n" +
	"RW01Butare\n" +
	"RW06Gitarama\n" +
	"RW07Kibungo\n" +
	"RW09Kigali\n" +
	"RW11Est\n" +
	"RW12Kigali\n" +
	"RW13Nord\n" +
	"RW14Ouest\n" +
	"RW15Sud\n" +
	"SA02Al Bahah\n" +
	"SA05Al Madinah\n" +
	"SA06Ash Sharqiyah\n" +
	"SA08Al Qasim\n" +
	"SA10Ar Riyad\n" +
	"SA11Asir Province\n" +
	"SA13Ha'il\n" +
	"SA14Makkah\n" +
	"SA15Al Hudud ash Shamaliyah\n" +
	"SA16Najran\n" +
	"SA17Jizan\n" +
	"SA19Tabuk\n" +
	"SA20Al Jawf\n" +
	"SB03Malaita\n" +
	"SB06Guadalcanal\n" +
	"SB07Isabel\n" +
	"SB08Makira\n" +
	"SB09Temotu\n" +
	"SB10Central\n" +
	"SB11Western\n" +
	"SB12Choiseul\n" +
	"SB13Rennell and Bellona\n" +
	"SC01Anse aux Pins\n" +
	"SC02Anse Boileau\n" +
	"SC03Anse Etoile\n" +
	"SC04Anse Louis\n" +
	"SC05Anse Royale\n" +
	"SC06Baie Lazare\n" +
	"SC07Baie Sainte Anne\n" +
	"SC08Beau Vallon\n" +
	"SC09Bel Air\n" +
	"SC10Bel Ombre\n" +
	"SC11Cascade\n" +
	"SC12Glacis\n" +
	"SC13Grand' Anse\n" +
	"SC14Grand' Anse\n" +
	"SC15La Digue\n" +
	"SC16La Riviere Anglaise\n" +
	"SC17Mont Buxton\n" +
	"SC18Mont Fleuri\n" +
	"SC19Plaisance\n" +
	"SC20Pointe La Rue\n" +
	"SC21Port Glaud\n" +
	"SC22Saint Louis\n" +
	"SC23Takamaka\n" +
	"SD27Al Wusta\n" +
	"SD28Al Istiwa'iyah\n" +
	"SD29Al Khartum\n" +
	"SD30Ash Shamaliyah\n" +
	"SD31Ash Sharqiyah\n" +
	"SD32Bahr al Ghazal\n" +
	"SD33Darfur\n" +
	"SD34Kurdufan\n" +
	"SD35Upper Nile\n" +
	"SD40Al Wahadah State\n" +
	"SD44Central Equatoria State\n" +
	"SD49Southern Darfur\n" +
	"SD50Southern Kordofan\n" +
	"SD52Kassala\n" +
	"SD53River Nile\n" +
	"SD55Northern Darfur\n" +
	"SE02Blekinge Lan\n" +
	"SE03Gavleborgs Lan\n" +
	"SE05Gotlands Lan\n" +
	"SE06Hallands Lan\n" +
	"SE07Jamtlands Lan\n" +
	"SE08Jonkopings Lan\n" +
	"SE09Kalmar Lan\n" +
	"SE10Dalarnas Lan\n" +
	"SE12Kronobergs Lan\n" +
	"SE14Norrbottens Lan\n" +
	"SE15Orebro Lan\n" +
	"SE16Ostergotlands Lan\n" +
	"SE18Sodermanlands Lan\n" +
	"SE21Uppsala Lan\n" +
	"SE22Varmlands Lan\n" +
	"SE23Vasterbottens Lan\n" +
	"SE24Vasternorrlands Lan\n" +
	"SE25Vastmanlands Lan\n" +
	"SE26Stockholms Lan\n" +
	"SE27Skane Lan\n" +
	"SE28Vastra Gotaland\n" +
	"SH01Ascension\n" +
	"SH02Saint Helena\n" +
	"SH03Tristan da Cunha\n" +
	"SI01Ajdovscina Commune\n" +
	"SI02Beltinci Commune\n" +
	"SI03Bled Commune\n" +
	"SI04Bohinj Commune\n" +
	"SI05Borovnica Commune\n" +
	"SI06Bovec Commune\n" +
	"SI07Brda Commune\n" +
	"SI08Brezice Commune\n" +
	"SI09Brezovica Commune\n" +
	"SI11Celje Commune\n" +
	"SI12Cerklje na Gorenjskem Commune\n" +
	"SI13Cerknica Commune\n" +
	"SI14Cerkno Commune\n" +
	"SI15Crensovci Commune\n" +
	"SI16Crna na Koroskem Commune\n" +
	"SI17Crnomelj Commune\n" +
	"SI19Divaca Commune\n" +
	"SI20Dobrepolje Commune\n" +
	"SI22Dol pri Ljubljani Commune\n" +
	"SI24Dornava Commune\n" +
	"SI25Dravograd Commune\n" +
	"SI26Duplek Commune\n" +
	"SI27Gorenja vas-Poljane Commune\n" +
	"SI28Gorisnica Commune\n" +
	"SI29Gornja Radgona Commune\n" +
	"SI30Gornji Grad Commune\n" +
	"SI31Gornji Petrovci Commune\n" +
	"SI32Grosuplje Commune\n" +
	"SI34Hrastnik Commune\n" +
	"SI35Hrpelje-Kozina Commune\n" +
	"SI36Idrija Commune\n" +
	"SI37Ig Commune\n" +
	"SI38Ilirska Bistrica Commune\n" +
	"SI39Ivancna Gorica Commune\n" +
	"SI40Izola-Isola Commune\n" +
	"SI42Jursinci Commune\n" +
	"SI44Kanal Commune\n" +
	"SI45Kidricevo Commune\n" +
	"SI46Kobarid Commune\n" +
	"SI47Kobilje Commune\n" +
	"SI49Komen Commune\n" +
	"SI50Koper-Capodistria Urban Commune\n" +
	"SI51Kozje Commune\n" +
	"SI52Kranj Commune\n" +
	"SI53Kranjska Gora Commune\n" +
	"SI54Krsko Commune\n" +
	"SI55Kungota Commune\n" +
	"SI57Lasko Commune\n" +
	"SI61Ljubljana Urban Commune\n" +
	"SI62Ljubno Commune\n" +
	"SI64Logatec Commune\n" +
	"SI66Loski Potok Commune\n" +
	"SI68Lukovica Commune\n" +
	"SI71Medvode Commune\n" +
	"SI72Menges Commune\n" +
	"SI73Metlika Commune\n" +
	"SI74Mezica Commune\n" +
	"SI76Mislinja Commune\n" +
	"SI77Moravce Commune\n" +
	"SI78Moravske Toplice Commune\n" +
	"SI79Mozirje Commune\n" +
	"SI80Murska Sobota Urban Commune\n" +
	"SI81Muta Commune\n" +
	"SI82Naklo Commune\n" +
	"SI83Nazarje Commune\n" +
	"SI84Nova Gorica Urban Commune\n" +
	"SI86Odranci Commune\n" +
	"SI87Ormoz Commune\n" +
	"SI88Osilnica Commune\n" +
	"SI89Pesnica Commune\n" +
	"SI91Pivka Commune\n" +
	"SI92Podcetrtek Commune\n" +
	"SI94Postojna Commune\n" +
	"SI97Puconci Commune\n" +
	"SI98Race-Fram Commune\n" +
	"SI99Radece Commune\n" +
	"SIA1Radenci Commune\n" +
	"SIA2Radlje ob Dravi Commune\n" +
	"SIA3Radovljica Commune\n" +
	"SIA6Rogasovci Commune\n" +
	"SIA7Rogaska Slatina Commune\n" +
	"SIA8Rogatec Commune\n" +
	"SIB1Semic Commune\n" +
	"SIB2Sencur Commune\n" +
	"SIB3Sentilj Commune\n" +
	"SIB4Sentjernej Commune\n" +
	"SIB6Sevnica Commune\n" +
	"SIB7Sezana Commune\n" +
	"SIB8Skocjan Commune\n" +
	"SIB9Skofja Loka Commune\n" +
	"SIC1Skofljica Commune\n" +
	"SIC2Slovenj Gradec Urban Commune\n" +
	"SIC4Slovenske Konjice Commune\n" +
	"SIC5Smarje pri Jelsah Commune\n" +
	"SIC6Smartno ob Paki Commune\n" +
	"SIC7Sostanj Commune\n" +
	"SIC8Starse Commune\n" +
	"SIC9Store Commune\n" +
	"SID1Sveti Jurij Commune\n" +
	"SID2Tolmin Commune\n" +
	"SID3Trbovlje Commune\n" +
	"SID4Trebnje Commune\n" +
	"SID5Trzic Commune\n" +
	"SID6Turnisce Commune\n" +
	"SID7Velenje Urban Commune\n" +
	"SID8Velike Lasce Commune\n" +
	"SIE1Vipava Commune\n" +
	"SIE2Vitanje Commune\n" +
	"SIE3Vodice Commune\n" +
	"SIE5Vrhnika Commune\n" +
	"SIE6Vuzenica Commune\n" +
	"SIE7Zagorje ob Savi Commune\n" +
	"SIE9Zavrc Commune\n" +
	"SIF1Zelezniki Commune\n" +
	"SIF2Ziri Commune\n" +
	"SIF3Zrece Commune\n" +
	"SIF4Benedikt Commune\n" +
	"SIF5Bistrica ob Sotli Commune\n" +
	"SIF6Bloke Commune\n" +
	"SIF7Braslovce Commune\n" +
	"SIF8Cankova Commune\n" +
	"SIF9Cerkvenjak Commune\n" +
	"SIG1Destrnik Commune\n" +
	"SIG2Dobje Commune\n" +
	"SIG3Dobrna Commune\n" +
	"SIG4Dobrova-Horjul-Polhov Gradec Commune\n" +
	"SIG5Dobrovnik-Dobronak Commune\n" +
	"SIG6Dolenjske Toplice Commune\n" +
	"SIG7Domzale Commune\n" +
	"SIG8Grad Commune\n" +
	"SIG9Hajdina Commune\n" +
	"SIH1Hoce-Slivnica Commune\n" +
	"SIH2Hodos-Hodos Commune\n" +
	"SIH3Horjul Commune\n" +
	"SIH4Jesenice Commune\n" +
	"SIH5Jezersko Commune\n" +
	"SIH6Kamnik Commune\n" +
	"SIH7Kocevje Commune\n" +
	"SIH8Komenda Commune\n" +
	"SIH9Kostel Commune\n" +
	"SII1Krizevci Commune\n" +
	"SII2Kuzma Commune\n" +
	"SII3Lenart Commune\n" +
	"SII4Lendava-Lendva Commune\n" +
	"SII5Litija Commune\n" +
	"SII6Ljutomer Commune\n" +
	"SII7Loska Dolina Commune\n" +
	"SII8Lovrenc na Pohorju Commune\n" +
	"SII9Luce Commune\n" +
	"SIJ1Majsperk Commune\n" +
	"SIJ2Maribor Commune\n" +
	"SIJ3Markovci Commune\n" +
	"SIJ4Miklavz na Dravskem polju Commune\n" +
	"SIJ5Miren-Kostanjevica Commune\n" +
	"SIJ6Mirna Pec Commune\n" +
	"SIJ7Novo mesto Urban Commune\n" +
	"SIJ8Oplotnica Commune\n" +
	"SIJ9Piran-Pirano Commune\n" +
	"SIK1Podlehnik Commune\n" +
	"SIK2Podvelka Commune\n" +
	"SIK3Polzela Commune\n" +
	"SIK4Prebold Commune\n" +
	"SIK5Preddvor Commune\n" +
	"SIK6Prevalje Commune\n" +
	"SIK7Ptuj Urban Commune\n" +
	"SIK8Ravne na Koroskem Commune\n" +
	"SIK9Razkrizje Commune\n" +
	"SIL1Ribnica Commune\n" +
	"SIL2Ribnica na Pohorju Commune\n" +
	"SIL3Ruse Commune\n" +
	"SIL4Salovci Commune\n" +
	"SIL5Selnica ob Dravi Commune\n" +
	"SIL6Sempeter-Vrtojba Commune\n" +
	"SIL7Sentjur pri Celju Commune\n" +
	"SIL8Slovenska Bistrica Commune\n" +
	"SIL9Smartno pri Litiji Commune\n" +
	"SIM1Sodrazica Commune\n" +
	"SIM2Solcava Commune\n" +
	"SIM3Sveta Ana Commune\n" +
	"SIM4Sveti Andraz v Slovenskih goricah Commune\n" +
	"SIM5Tabor Commune\n" +
	"SIM6Tisina Commune\n" +
	"SIM7Trnovska vas Commune\n" +
	"SIM8Trzin Commune\n" +
	"SIM9Velika Polana Commune\n" +
	"SIN1Verzej Commune\n" +
	"SIN2Videm Commune\n" +
	"SIN3Vojnik Commune\n" +
	"SIN4Vransko Commune\n" +
	"SIN5Zalec Commune\n" +
	"SIN6Zetale Commune\n" +
	"SIN7Zirovnica Commune\n" +
	"SIN8Zuzemberk Commune\n" +
	"SIN9Apace Commune\n" +
	"SIO1Cirkulane Commune\n" +
	"SIO2Gorje\n" +
	"SIO3Kostanjevica na Krki\n" +
	"SIO4Log-Dragomer\n" +
	"SIO5Makole\n" +
	"SIO6Mirna\n" +
	"SIO7Mokronog-Trebelno\n" +
	"SIO8Poljcane\n" +
	"SIO9Recica ob Savinji\n" +
	"SIP1Rence-Vogrsko\n" +
	"SIP2Sentrupert\n" +
	"SIP3Smarjesk Toplice\n" +
	"SIP4Sredisce ob Dravi\n" +
	"SIP5Straza\n" +
	"SIP7Sveti Jurij v Slovenskih Goricah\n" +
	"SK01Banska Bystrica\n" +
	"SK02Bratislava\n" +
	"SK03Kosice\n" +
	"SK04Nitra\n" +
	"SK05Presov\n" +
	"SK06Trencin\n" +
	"SK07Trnava\n" +
	"SK08Zilina\n" +
	"SL01Eastern\n" +
	"SL02Northern\n" +
	"SL03Southern\n" +
	"SL04Western Area\n" +
	"SM01Acquaviva\n" +
	"SM02Chiesanuova\n" +
	"SM03Domagnano\n" +
	"SM04Faetano\n" +
	"SM05Fiorentino\n" +
	"SM06Borgo Maggiore\n" +
	"SM07San Marino\n" +
	"SM08Monte Giardino\n" +
	"SM09Serravalle\n" +
	"SN01Dakar\n" +
	"SN03Diourbel\n" +
	"SN05Tambacounda\n" +
	"SN07Thies\n" +
	"SN09Fatick\n" +
	"SN10Kaolack\n" +
	"SN11Kolda\n" +
	"SN12Ziguinchor\n" +
	"SN13Louga\n" +
	"SN14Saint-Louis\n" +
	"SN15Matam\n" +
	"SO01Bakool\n" +
	"SO02Banaadir\n" +
	"SO03Bari\n" +
	"SO04Bay\n" +
	"SO05Galguduud\n" +
	"SO06Gedo\n" +
	"SO07Hiiraan\n" +
	"SO08Jubbada Dhexe\n" +
	"SO09Jubbada Hoose\n" +
	"SO10Mudug\n" +
	"SO11Nugaal\n" +
	"SO12Sanaag\n" +
	"SO13Shabeellaha Dhexe\n" +
	"SO14Shabeellaha Hoose\n" +
	"SO16Woqooyi Galbeed\n" +
	"SO18Nugaal\n" +
	"SO19Togdheer\n" +
	"SO20Woqooyi Galbeed\n" +
	"SO21Awdal\n" +
	"SO22Sool\n" +
	"SR10Brokopondo\n" +
	"SR11Commewijne\n" +
	"SR12Coronie\n" +
	"SR13Marowijne\n" +
	"SR14Nickerie\n" +
	"SR15Para\n" +
	"SR16Paramaribo\n" +
	"SR17Saramacca\n" +
	"SR18Sipaliwini\n" +
	"SR19Wanica\n" +
	"SS01Central Equatoria\n" +
	"SS02Eastern Equatoria\n" +
	"SS03Jonglei\n" +
	"SS04Lakes\n" +
	"SS05Northern Bahr el Ghazal\n" +
	"SS06Unity\n" +
	"SS07Upper Nile\n" +
	"SS08Warrap\n" +
	"SS09Western Bahr el Ghazal\n" +
	"SS10Western Equatoria\n" +
	"ST01Principe\n" +
	"ST02Sao Tome\n" +
	"SV01Ahuachapan\n" +
	"SV02Cabanas\n" +
	"SV03Chalatenango\n" +
	"SV04Cuscatlan\n" +
	"SV05La Libertad\n" +
	"SV06La Paz\n" +
	"SV07La Union\n" +
	"SV08Morazan\n" +
	"SV09San Miguel\n" +
	"SV10San Salvador\n" +
	"SV11Santa Ana\n" +
	"SV12San Vicente\n" +
	"SV13Sonsonate\n" +
	"SV14Usulutan\n" +
	"SY01Al Hasakah\n" +
	"SY02Al Ladhiqiyah\n" +
	"SY03Al Qunaytirah\n" +
	"SY04Ar Raqqah\n" +
	"SY05As Suwayda'\n" +
	"SY06Dar\n" +
	"SY07Dayr az Zawr\n" +
	"SY08Rif Dimashq\n" +
	"SY09Halab\n" +
	"SY10Hamah\n" +
	"SY11Hims\n" +
	"SY12Idlib\n" +
	"SY13Dimashq\n" +
	"SY14Tartus\n" +
	"SZ01Hhohho\n" +
	"SZ02Lubombo\n" +
	"SZ03Manzini\n" +
	"SZ04Shiselweni\n" +
	"SZ05Praslin\n" +
	"TD01Batha\n" +
	"TD02Biltine\n" +
	"TD03Borkou-Ennedi-Tibesti\n" +
	"TD04Chari-Baguirmi\n" +
	"TD05Guera\n" +
	"TD06Kanem\n" +
	"TD07Lac\n" +
	"TD08Logone Occidental\n" +
	"TD09Logone Oriental\n" +
	"TD10Mayo-Kebbi\n" +
	"TD11Moyen-Chari\n" +
	"TD12Ouaddai\n" +
	"TD13Salamat\n" +
	"TD14Tandjile\n" +
	"TG22Centrale\n" +
	"TG23Kara\n" +
	"TG24Maritime\n" +
	"TG25Plateaux\n" +
	"TG26Savanes\n" +
	"TH01Mae Hong Son\n" +
	"TH02Chiang Mai\n" +
	"TH03Chiang Rai\n" +
	"TH04Nan\n" +
	"TH05Lamphun\n" +
	"TH06Lampang\n" +
	"TH07Phrae\n" +
	"TH08Tak\n" +
	"TH09Sukhothai\n" +
	"TH10Uttaradit\n" +
	"TH11Kamphaeng Phet\n" +
	"TH12Phitsanulok\n" +
	"TH13Phichit\n" +
	"TH14Phetchabun\n" +
	"TH15Uthai Thani\n" +
	"TH16Nakhon Sawan\n" +
	"TH17Nong Khai\n" +
	"TH18Loei\n" +
	"TH20Sakon Nakhon\n" +
	"TH21Nakhon Phanom\n" +
	"TH22Khon Kaen\n" +
	"TH23Kalasin\n" +
	"TH24Maha Sarakham\n" +
	"TH25Roi Et\n" +
	"TH26Chaiyaphum\n" +
	"TH27Nakhon Ratchasima\n" +
	"TH28Buriram\n" +
	"TH29Surin\n" +
	"TH30Sisaket\n" +
	"TH31Narathiwat\n" +
	"TH32Chai Nat\n" +
	"TH33Sing Buri\n" +
	"TH34Lop Buri\n" +
	"TH35Ang Thong\n" +
	"TH36Phra Nakhon Si Ayutthaya\n" +
	"TH37Saraburi\n" +
	"TH38Nonthaburi\n" +
	"TH39Pathum Thani\n" +
	"TH40Krung Thep\n" +
	"TH41Phayao\n" +
	"TH42Samut Prakan\n" +
	"TH43Nakhon Nayok\n" +
	"TH44Chachoengsao\n" +
	"TH45Prachin Buri\n" +
	"TH46Chon Buri\n" +
	"TH47Rayong\n" +
	"TH48Chanthaburi\n" +
	"TH49Trat\n" +
	"TH50Kanchanaburi\n" +
	"TH51Suphan Buri\n" +
	"TH52Ratchaburi\n" +
	"TH53Nakhon Pathom\n" +
	"TH54Samut Songkhram\n" +
	"TH55Samut Sakhon\n" +
	"TH56Phetchaburi\n" +
	"TH57Prachuap Khiri Khan\n" +
	"TH58Chumphon\n" +
	"TH59Ranong\n" +
	"TH60Surat Thani\n" +
	"TH61Phangnga\n" +
	"TH62Phuket\n" +
	"TH63Krabi\n" +
	"TH64Nakhon Si Thammarat\n" +
	"TH65Trang\n" +
	"TH66Phatthalung\n" +
	"TH67Satun\n" +
	"TH68Songkhla\n" +
	"TH69Pattani\n" +
	"TH70Yala\n" +
	"TH71Ubon Ratchathani\n" +
	"TH72Yasothon\n" +
	"TH73Nakhon Phanom\n" +
	"TH74Prachin Buri\n" +
	"TH75Ubon Ratchathani\n" +
	"TH76Udon Thani\n" +
	"TH77Amnat Charoen\n" +
	"TH78Mukdahan\n" +
	"TH79Nong Bua Lamphu\n" +
	"TH80Sa Kaeo\n" +
	"TH81Bueng Kan\n" +
	"TJ01Kuhistoni Badakhshon\n" +
	"TJ02Khatlon\n" +
	"TJ03Sughd\n" +
	"TJ04Dushanbe\n" +
	"TJ05Nohiyahoi Tobei Jumhuri\n" +
	"TL06Dili\n" +
	"TM01Ahal\n" +
	"TM02Balkan\n" +
	"TM03Dashoguz\n" +
	"TM04Lebap\n" +
	"TM05Mary\n" +
	"TN02Kasserine\n" +
	"TN03Kairouan\n" +
	"TN06Jendouba\n" +
	"TN10Qafsah\n" +
	"TN14El Kef\n" +
	"TN15Al Mahdia\n" +
	"TN16Al Munastir\n" +
	"TN17Bajah\n" +
	"TN18Bizerte\n" +
	"TN19Nabeul\n" +
	"TN22Siliana\n" +
	"TN23Sousse\n" +
	"TN27Ben Arous\n" +
	"TN28Madanin\n" +
	"TN29Gabes\n" +
	"TN31Kebili\n" +
	"TN32Sfax\n" +
	"TN33Sidi Bou Zid\n" +
	"TN34Tataouine\n" +
	"TN35Tozeur\n" +
	"TN36Tunis\n" +
	"TN37Zaghouan\n" +
	"TN38Aiana\n" +
	"TN39Manouba\n" +
	"TO01Ha\n" +
	"TO02Tongatapu\n" +
	"TO03Vava\n" +
	"TR02Adiyaman\n" +
	"TR03Afyonkarahisar\n" +
	"TR04Agri\n" +
	"TR05Amasya\n" +
	"TR07Antalya\n" +
	"TR08Artvin\n" +
	"TR09Aydin\n" +
	"TR10Balikesir\n" +
	"TR11Bilecik\n" +
	"TR12Bingol\n" +
	"TR13Bitlis\n" +
	"TR14Bolu\n" +
	"TR15Burdur\n" +
	"TR16Bursa\n" +
	"TR17Canakkale\n" +
	"TR19Corum\n" +
	"TR20Denizli\n" +
	"TR21Diyarbakir\n" +
	"TR22Edirne\n" +
	"TR23Elazig\n" +
	"TR24Erzincan\n" +
	"TR25Erzurum\n" +
	"TR26Eskisehir\n" +
	"TR28Giresun\n" +
	"TR31Hatay\n" +
	"TR32Mersin\n" +
	"TR33Isparta\n" +
	"TR34Istanbul\n" +
	"TR35Izmir\n" +
	"TR37Kastamonu\n" +
	"TR38Kayseri\n" +
	"TR39Kirklareli\n" +
	"TR40Kirsehir\n" +
	"TR41Kocaeli\n" +
	"TR43Kutahya\n" +
	"TR44Malatya\n" +
	"TR45Manisa\n" +
	"TR46Kahramanmaras\n" +
	"TR48Mugla\n" +
	"TR49Mus\n" +
	"TR50Nevsehir\n" +
	"TR52Ordu\n" +
	"TR53Rize\n" +
	"TR54Sakarya\n" +
	"TR55Samsun\n" +
	"TR57Sinop\n" +
	"TR58Sivas\n" +
	"TR59Tekirdag\n" +
	"TR60Tokat\n" +
	"TR61Trabzon\n" +
	"TR62Tunceli\n" +
	"TR63Sanliurfa\n" +
	"TR64Usak\n" +
	"TR65Van\n" +
	"TR66Yozgat\n" +
	"TR68Ankara\n" +
	"TR69Gumushane\n" +
	"TR70Hakkari\n" +
	"TR71Konya\n" +
	"TR72Mardin\n" +
	"TR73Nigde\n" +
	"TR74Siirt\n" +
	"TR75Aksaray\n" +
	"TR76Batman\n" +
	"TR77Bayburt\n" +
	"TR78Karaman\n" +
	"TR79Kirikkale\n" +
	"TR80Sirnak\n" +
	"TR81Adana\n" +
	"TR82Cankiri\n" +
	"TR83Gaziantep\n" +
	"TR84Kars\n" +
	"TR85Zonguldak\n" +
	"TR86Ardahan\n" +
	"TR87Bartin\n" +
	"TR88Igdir\n" +
	"TR89Karabuk\n" +
	"TR90Kilis\n" +
	"TR91Osmaniye\n" +
	"TR92Yalova\n" +
	"TR93Duzce\n" +
	"TT01Arima\n" +
	"TT02Caroni\n" +
	"TT03Mayaro\n" +
	"TT04Nariva\n" +
	"TT05Port-of-Spain\n" +
	"TT06Saint Andrew\n" +
	"TT07Saint David\n" +
	"TT08Saint George\n" +
	"TT09Saint Patrick\n" +
	"TT10San Fernando\n" +
	"TT11Tobago\n" +
	"TT12Victoria\n" +
	"TW01Fu-chien\n" +
	"TW02Kao-hsiung\n" +
	"TW03T'ai-pei\n" +
	"TW04T'ai-wan\n" +
	"TZ02Pwani\n" +
	"TZ03Dodoma\n" +
	"TZ04Iringa\n" +
	"TZ05Kigoma\n" +
	"TZ06Kilimanjaro\n" +
	"TZ07Lindi\n" +
	"TZ08Mara\n" +
	"TZ09Mbeya\n" +
	"TZ10Morogoro\n" +
	"TZ11Mtwara\n" +
	"TZ12Mwanza\n" +
	"TZ13Pemba North\n" +
	"TZ14Ruvuma\n" +
	"TZ15Shinyanga\n" +
	"TZ16Singida\n" +
	"TZ17Tabora\n" +
	"TZ18Tanga\n" +
	"TZ19Kagera\n" +
	"TZ20Pemba South\n" +
	"TZ21Zanzibar Central\n" +
	"TZ22Zanzibar North\n" +
	"TZ23Dar es Salaam\n" +
	"TZ24Rukwa\n" +
	"TZ25Zanzibar Urban\n" +
	"TZ26Arusha\n" +
	"TZ27Manyara\n" +
	"UA01Cherkas'ka Oblast'\n" +
	"UA02Chernihivs'ka Oblast'\n" +
	"UA03Chernivets'ka Oblast'\n" +
	"UA04Dnipropetrovs'ka Oblast'\n" +
	"UA05Donets'ka Oblast'\n" +
	"UA06Ivano-Frankivs'ka Oblast'\n" +
	"UA07Kharkivs'ka Oblast'\n" +
	"UA08Khersons'ka Oblast'\n" +
	"UA09Khmel'nyts'ka Oblast'\n" +
	"UA10Kirovohrads'ka Oblast'\n" +
	"UA11Krym\n" +
	"UA12Kyyiv\n" +
	"UA13Kyyivs'ka Oblast'\n" +
	"UA14Luhans'ka Oblast'\n" +
	"UA15L'vivs'ka Oblast'\n" +
	"UA16Mykolayivs'ka Oblast'\n" +
	"UA17Odes'ka Oblast'\n" +
	"UA18Poltavs'ka Oblast'\n" +
	"UA19Rivnens'ka Oblast'\n" +
	"UA20Sevastopol'\n" +
	"UA21Sums'ka Oblast'\n" +
	"UA22Ternopil's'ka Oblast'\n" +
	"UA23Vinnyts'ka Oblast'\n" +
	"UA24Volyns'ka Oblast'\n" +
	"UA25Zakarpats'ka Oblast'\n" +
	"UA26Zaporiz'ka Oblast'\n" +
	"UA27Zhytomyrs'ka Oblast'\n" +
	"UG26Apac\n" +
	"UG28Bundibugyo\n" +
	"UG29Bushenyi\n" +
	"UG30Gulu\n" +
	"UG31Hoima\n" +
	"UG33Jinja\n" +
	"UG36Kalangala\n" +
	"UG37Kampala\n" +
	"UG38Kamuli\n" +
	"UG39Kapchorwa\n" +
	"UG40Kasese\n" +
	"UG41Kibale\n" +
	"UG42Kiboga\n" +
	"UG43Kisoro\n" +
	"UG45Kotido\n" +
	"UG46Kumi\n" +
	"UG47Lira\n" +
	"UG50Masindi\n" +
	"UG52Mbarara\n" +
	"UG56Mubende\n" +
	"UG58Nebbi\n" +
	"UG59Ntungamo\n" +
	"UG60Pallisa\n" +
	"UG61Rakai\n" +
	"UG65Adjumani\n" +
	"UG66Bugiri\n" +
	"UG67Busia\n" +
	"UG69Katakwi\n" +
	"UG70Luwero\n" +
	"UG71Masaka\n" +
	"UG72Moyo\n" +
	"UG73Nakasongola\n" +
	"UG74Sembabule\n" +
	"UG76Tororo\n" +
	"UG77Arua\n" +
	"UG78Iganga\n" +
	"UG79Kabarole\n" +
	"UG80Kaberamaido\n" +
	"UG81Kamwenge\n" +
	"UG82Kanungu\n" +
	"UG83Kayunga\n" +
	"UG84Kitgum\n" +
	"UG85Kyenjojo\n" +
	"UG86Mayuge\n" +
	"UG87Mbale\n" +
	"UG88Moroto\n" +
	"UG89Mpigi\n" +
	"UG90Mukono\n" +
	"UG91Nakapiripirit\n" +
	"UG92Pader\n" +
	"UG93Rukungiri\n" +
	"UG94Sironko\n" +
	"UG95Soroti\n" +
	"UG96Wakiso\n" +
	"UG97Yumbe\n" +
	"USAAArmed Forces Americas\n" +
	"USAEArmed Forces Europe, Middle East, & Canada\n" +
	"USAKAlaska\n" +
	"USALAlabama\n" +
	"USAPArmed Forces Pacific\n" +
	"USARArkansas\n" +
	"USASAmerican Samoa\n" +
	"USAZArizona\n" +
	"USCACalifornia\n" +
	"USCOColorado\n" +
	"USCTConnecticut\n" +
	"USDCDistrict of Columbia\n" +
	"USDEDelaware\n" +
	"USFLFlorida\n" +
	"USFMFederated States of Micronesia\n" +
	"USGAGeorgia\n" +
	"USGUGuam\n" +
	"USHIHawaii\n" +
	"USIAIowa\n" +
	"USIDIdaho\n" +
	"USILIllinois\n" +
	"USINIndiana\n" +
	"USKSKansas\n" +
	"USKYKentucky\n" +
	"USLALouisiana\n" +
	"USMAMassachusetts\n" +
	"USMDMaryland\n" +
	"USMEMaine\n" +
	"USMHMarshall Islands\n" +
	"USMIMichigan\n" +
	"USMNMinnesota\n" +
	"USMOMissouri\n" +
	"USMPNorthern Mariana Islands\n" +
	"USMSMississippi\n" +
	"USMTMontana\n" +
	"USNCNorth Carolina\n" +
	"USNDNorth Dakota\n" +
	"USNENebraska\n" +
	"USNHNew Hampshire\n" +
	"USNJNew Jersey\n" +
	"USNMNew Mexico\n" +
	"USNVNevada\n" +
	"USNYNew York\n" +
	"USOHOhio\n" +
	"USOKOklahoma\n" +
	"USOROregon\n" +
	"USPAPennsylvania\n" +
	"USPWPalau\n" +
	"USRIRhode Island\n" +
	"USSCSouth Carolina\n" +
	"USSDSouth Dakota\n" +
	"USTNTennessee\n" +
	"USTXTexas\n" +
	"USUTUtah\n" +
	"USVAVirginia\n" +
	"USVIVirgin Islands\n" +
	"USVTVermont\n" +
	"USWAWashington\n" +
	"USWIWisconsin\n" +
	"USWVWest Virginia\n" +
	"USWYWyoming\n" +
	"UY01Artigas\n" +
	"UY02Canelones\n" +
	"UY03Cerro Largo\n" +
	"UY04Colonia\n" +
	"UY05Durazno\n" +
	"UY06Flores\n" +
	"UY07Florida\n" +
	"UY08Lavalleja\n" +
	"UY09Maldonado\n" +
	"UY10Montevideo\n" +
	"UY11Paysandu\n" +
	"UY12Rio Negro\n" +
	"UY13Rivera\n" +
	"UY14Rocha\n" +
	"UY15Salto\n" +
	"UY16San Jose\n" +
	"UY17Soriano\n" +
	"UY18Tacuarembo\n" +
	"UY19Treinta y Tres\n" +
	"UZ01Andijon\n" +
	"UZ02Bukhoro\n" +
	"UZ03Farghona\n" +
	"UZ04Jizzakh\n" +
	"UZ05Khorazm\n" +
	"UZ06Namangan\n" +
	"UZ07Nawoiy\n" +
	"UZ08Qashqadaryo\n" +
	"UZ09Qoraqalpoghiston\n" +
	"UZ10Samarqand\n" +
	"UZ11Sirdaryo\n" +
	"UZ12Surkhondaryo\n" +
	"UZ13Toshkent\n" +
	"UZ14Toshkent\n" +
	"UZ15Jizzax\n" +
	"VC01Charlotte\n" +
	"VC02Saint Andrew\n" +
	"VC03Saint David\n" +
	"VC04Saint George\n" +
	"VC05Saint Patrick\n" +
	"VC06Grenadines\n" +
	"VE01Amazonas\n" +
	"VE02Anzoategui\n" +
	"VE03Apure\n" +
	"VE04Aragua\n" +
	"VE05Barinas\n" +
	"VE06Bolivar\n" +
	"VE07Carabobo\n" +
	"VE08Cojedes\n" +
	"VE09Delta Amacuro\n" +
	"VE11Falcon\n" +
	"VE12Guarico\n" +
	"VE13Lara\n" +
	"VE14Merida\n" +
	"VE15Miranda\n" +
	"VE16Monagas\n" +
	"VE17Nueva Esparta\n" +
	"VE18Portuguesa\n" +
	"VE19Sucre\n" +
	"VE20Tachira\n" +
	"VE21Trujillo\n" +
	"VE22Yaracuy\n" +
	"VE23Zulia\n" +
	"VE24Dependencias Federales\n" +
	"VE25Distrito Federal\n" +
	"VE26Vargas\n" +
	"VN01An Giang\n" +
	"VN03Ben Tre\n" +
	"VN05Cao Bang\n" +
	"VN09Dong Thap\n" +
	"VN13Hai Phong\n" +
	"VN20Ho Chi Minh\n" +
	"VN21Kien Giang\n" +
	"VN23Lam Dong\n" +
	"VN24Long An\n" +
	"VN30Quang Ninh\n" +
	"VN32Son La\n" +
	"VN33Tay Ninh\n" +
	"VN34Thanh Hoa\n" +
	"VN35Thai Binh\n" +
	"VN37Tien Giang\n" +
	"VN39Lang Son\n" +
	"VN43Dong Nai\n" +
	"VN44Ha Noi\n" +
	"VN45Ba Ria-Vung Tau\n" +
	"VN46Binh Dinh\n" +
	"VN47Binh Thuan\n" +
	"VN49Gia Lai\n" +
	"VN50Ha Giang\n" +
	"VN52Ha Tinh\n" +
	"VN53Hoa Binh\n" +
	"VN54Khanh Hoa\n" +
	"VN55Kon Tum\n" +
	"VN58Nghe An\n" +
	"VN59Ninh Binh\n" +
	"VN60Ninh Thuan\n" +
	"VN61Phu Yen\n" +
	"VN62Quang Binh\n" +
	"VN63Quang Ngai\n" +
	"VN64Quang Tri\n" +
	"VN65Soc Trang\n" +
	"VN66Thua Thien-Hue\n" +
	"VN67Tra Vinh\n" +
	"VN68Tuyen Quang\n" +
	"VN69Vinh Long\n" +
	"VN70Yen Bai\n" +
	"VN71Bac Giang\n" +
	"VN72Bac Kan\n" +
	"VN73Bac Lieu\n" +
	"VN74Bac Ninh\n" +
	"VN75Binh Duong\n" +
	"VN76Binh Phuoc\n" +
	"VN77Ca Mau\n" +
	"VN78Da Nang\n" +
	"VN79Hai Duong\n" +
	"VN80Ha Nam\n" +
	"VN81Hung Yen\n" +
	"VN82Nam Dinh\n" +
	"VN83Phu Tho\n" +
	"VN84Quang Nam\n" +
	"VN85Thai Nguyen\n" +
	"VN86Vinh Phuc\n" +
	"VN87Can Tho\n" +
	"VN88Dac Lak\n" +
	"VN89Lai Chau\n" +
	"VN90Lao Cai\n" +
	"VN91Dak Nong\n" +
	"VN92Dien Bien\n" +
	"VN93Hau Giang\n" +
	"VU05Ambrym\n" +
	"VU06Aoba\n" +
	"VU07Torba\n" +
	"VU08Efate\n" +
	"VU09Epi\n" +
	"VU10Malakula\n" +
	"VU11Paama\n" +
	"VU12Pentecote\n" +
	"VU13Sanma\n" +
	"VU14Shepherd\n" +
	"VU15Tafea\n" +
	"VU16Malampa\n" +
	"VU17Penama\n" +
	"VU18Shefa\n" +
	"WS02Aiga-i-le-Tai\n" +
	"WS03Atua\n" +
	"WS04Fa\n" +
	"WS05Gaga\n" +
	"WS06Va\n" +
	"WS07Gagaifomauga\n" +
	"WS08Palauli\n" +
	"WS09Satupa\n" +
	"WS10Tuamasaga\n" +
	"WS11Vaisigano\n" +
	"YE01Abyan\n" +
	"YE02Adan\n" +
	"YE03Al Mahrah\n" +
	"YE04Hadramawt\n" +
	"YE05Shabwah\n" +
	"YE06Lahij\n" +
	"YE07Al Bayda'\n" +
	"YE08Al Hudaydah\n" +
	"YE09Al Jawf\n" +
	"YE10Al Mahwit\n" +
	"YE11Dhamar\n" +
	"YE12Hajjah\n" +
	"YE13Ibb\n" +
	"YE14Ma'rib\n" +
	"YE15Sa'dah\n" +
	"YE16San'a'\n" +
	"YE17Taizz\n" +
	"YE18Ad Dali\n" +
	"YE19Amran\n" +
	"YE20Al Bayda'\n" +
	"YE21Al Jawf\n" +
	"YE22Hajjah\n" +
	"YE23Ibb\n" +
	"YE24Lahij\n" +
	"YE25Taizz\n" +
	"ZA01North-Western Province\n" +
	"ZA02KwaZulu-Natal\n" +
	"ZA03Free State\n" +
	"ZA05Eastern Cape\n" +
	"ZA06Gauteng\n" +
	"ZA07Mpumalanga\n" +
	"ZA08Northern Cape\n" +
	"ZA09Limpopo\n" +
	"ZA10North-West\n" +
	"ZA11Western Cape\n" +
	"ZM01Western\n" +
	"ZM02Central\n" +
	"ZM03Eastern\n" +
	"ZM04Luapula\n" +
	"ZM05Northern\n" +
	"ZM06North-Western\n" +
	"ZM07Southern\n" +
	"ZM08Copperbelt\n" +
	"ZM09Lusaka\n" +
	"ZW01Manicaland\n" +
	"ZW02Midlands\n" +
	"ZW03Mashonaland Central\n" +
	"ZW04Mashonaland East\n" +
	"ZW05Mashonaland West\n" +
	"ZW06Matabeleland North\n" +
	"ZW07Matabeleland South\n" +
	"ZW08Masvingo\n" +
	"ZW09Bulawayo\n" +
	"ZW10Harare\n"
